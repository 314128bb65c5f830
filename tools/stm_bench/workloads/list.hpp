// SPDX-License-Identifier: Apache-2.0
// stm_bench --workload list: the sorted-set mix and the insert-after file replay,
// written once over an execution policy (list.cpp: CPU, list_gpu.cu: GPU).
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "containers/list/harris_seq.hpp"
#include "containers/list/harris_set.hpp"
#include "containers/list/indexed_seq.hpp"
#include "containers/list/seed_format.hpp"
#include "containers/list/tx_set.hpp"
#include "stm/buffer.hpp"
#include "stm/lock_table.hpp"
#include "stm/stats.hpp"

namespace bench_list {

struct mix_config {
  std::uint32_t keys = 10000;
  std::uint64_t ops = 1000000;
  double insert = 20, remove = 20;  // percent; the rest are contains
  std::uint32_t threads = 1;
  std::uint64_t seed = 1;
  stm::one_shot_mode one_shot = stm::default_one_shot_mode;  // tx: how its one-shot insert and remove run
};

struct outcome {
  double seconds = 0;
  std::uint64_t ops = 0, succeeded = 0, exhausted = 0, capacity = 0;
  std::uint64_t final_size = 0;
  stm::tx_stats stats;  // tx only
  bool verified = false;
  std::string message;
};

struct mix_data {
  std::vector<std::uint32_t> initial, kind, key;  // kind 0 insert, 1 remove, 2 contains
};

inline mix_data make_mix(const mix_config& c) {
  mix_data d;
  std::mt19937_64 rng(c.seed);
  // In increasing order: the sets' assign() then builds them in linear time
  // (no sort; at the documented maximum of 2^26 keys the sort and a shuffle
  // before it took most of the set-up).
  for (std::uint32_t k = 0; k < c.keys; ++k)
    if (rng() & 1) d.initial.push_back(k);
  d.kind.resize(c.ops);
  d.key.resize(c.ops);
  std::uniform_real_distribution<double> pct(0, 100);
  for (std::uint64_t i = 0; i < c.ops; ++i) {
    const double p = pct(rng);
    d.kind[i] = p < c.insert ? 0 : p < c.insert + c.remove ? 1 : 2;
    d.key[i] = static_cast<std::uint32_t>(rng() % c.keys);
  }
  return d;
}

/// Buckets of the bucketed and tx variants: about two keys of the range each.
inline std::uint32_t mix_buckets(std::uint32_t keys) { return std::max<std::uint32_t>(1, keys / 2); }

/// Host check of a mix run: final == initial + successful inserts - successful removes.
inline std::string verify_mix(const mix_config& c, const mix_data& d, const std::vector<std::uint8_t>& st,
                              const std::vector<std::uint32_t>& final_keys, const std::string& structure) {
  if (!structure.empty()) return structure;
  std::vector<std::int64_t> count(c.keys, 0);
  for (auto k : d.initial) count[k] = 1;
  for (std::uint64_t i = 0; i < c.ops; ++i) {
    if (st[i] != std::uint8_t(stm::op_status::ok) || d.kind[i] == 2) continue;
    count[d.key[i]] += d.kind[i] == 0 ? 1 : -1;
  }
  std::vector<char> present(c.keys, 0);
  for (auto k : final_keys) {
    if (k >= c.keys) return "key " + std::to_string(k) + " was never inserted";
    present[k] = 1;
  }
  for (std::uint32_t k = 0; k < c.keys; ++k) {
    if (count[k] < 0 || count[k] > 1) return "key " + std::to_string(k) + ": successful inserts and removes do not alternate";
    if (count[k] != present[k])
      return "key " + std::to_string(k) + (present[k] ? " present" : " absent") + " but initial + inserts - removes = " +
             std::to_string(count[k]);
  }
  return "";
}

template <class Exec, class CM>
outcome run_mix(const mix_config& c, const std::string& impl) {
  const mix_data d = make_mix(c);
  std::uint64_t inserts = 0;
  for (auto k : d.kind) inserts += k == 0;
  const std::uint64_t capacity = d.initial.size() + inserts + 1;
  stm::buffer<std::uint32_t> kind(Exec::where, c.ops), key(Exec::where, c.ops);
  kind.upload(d.kind);
  key.upload(d.key);
  stm::buffer<std::uint8_t> status(Exec::where, c.ops);
  const std::uint32_t* kp = kind.data();
  const std::uint32_t* yp = key.data();
  std::uint8_t* sp = status.data();
  const std::uint32_t threads = c.threads;
  const std::uint64_t n_ops = c.ops;
  outcome out;
  out.ops = c.ops;
  std::vector<std::uint32_t> final_keys;
  std::string structure;
  if (impl == "tx") {
    stm::list::tx_set set(Exec::where, capacity, {0, c.keys - 1, mix_buckets(c.keys)});
    set.set_one_shot(c.one_shot);
    set.assign(d.initial);  // linear set-up; inserting keys one by one walks O(n^2) nodes
    const auto s = set.template ref<CM>();
    stm::stats_block stats(Exec::where);
    const auto st = stats.ref();
    out.seconds = Exec::run(threads, [=] STM_HD(std::uint32_t tid) {
      stm::tx_counters cnt;
      for (std::uint64_t i = tid; i < n_ops; i += threads) {
        stm::op_status r;
        if (kp[i] == 0) r = s.insert(tid, yp[i], &cnt);
        else if (kp[i] == 1) r = s.remove(tid, yp[i], &cnt);
        else r = s.contains(tid, yp[i], &cnt);
        sp[i] = static_cast<std::uint8_t>(r);
      }
      st.add(cnt);
    });
    out.stats = stats.read();
    structure = set.check(&final_keys);
    if (structure.empty() && !set.locks_free()) structure = "a lock is still held after the run";
    set.reclaim();
    if (structure.empty()) structure = set.check();
  } else {
    const std::uint32_t buckets = impl == "bucketed" ? mix_buckets(c.keys) : 1;
    stm::list::harris_set set(Exec::where, capacity, {0, std::max(c.keys, 1u) - 1, buckets});
    set.assign(d.initial);
    const auto s = set.ref();
    out.seconds = Exec::run(threads, [=] STM_HD(std::uint32_t tid) {
      for (std::uint64_t i = tid; i < n_ops; i += threads) {
        stm::op_status r;
        if (kp[i] == 0) r = s.insert(tid, yp[i]);
        else if (kp[i] == 1) r = s.remove(tid, yp[i]);
        else r = s.contains(tid, yp[i]);
        sp[i] = static_cast<std::uint8_t>(r);
      }
    });
    structure = set.check(&final_keys);
    set.reclaim();
    if (structure.empty()) structure = set.check();
  }
  const auto st = status.to_vector();
  for (auto v : st) {
    out.succeeded += v == std::uint8_t(stm::op_status::ok);
    out.exhausted += v == std::uint8_t(stm::op_status::full);
    out.capacity += v == std::uint8_t(stm::op_status::capacity);
  }
  out.final_size = final_keys.size();
  if (out.exhausted) structure = "pool exhausted although sized for every insert";
  out.message = verify_mix(c, d, st, final_keys, structure);
  out.verified = out.message.empty();
  if (out.verified)
    out.message = "final set (" + std::to_string(final_keys.size()) +
                  " keys) == initial + successful inserts - successful removes; sorted, no marked node reachable, "
                  "free ring disjoint from the list, every node accounted for";
  return out;
}

struct seed_config {
  std::vector<std::uint32_t> initial;
  std::vector<stm::list::seed::operation> ops;
  std::uint32_t threads = 32 * 1024;
};

/// Seed replay on a positional list: Seq is stm::list::harris_seq ("harris")
/// or stm::list::indexed_seq ("indexed").
template <class Exec, class Seq>
outcome run_seed(const seed_config& c) {
  const std::uint64_t n = c.ops.size();
  std::uint64_t inserts = 0;
  for (const auto& op : c.ops) inserts += op.kind == 1;
  Seq seq(Exec::where, c.initial.size() + inserts + 1);
  seq.assign(c.initial);
  std::vector<std::uint32_t> packed(3 * n);
  for (std::uint64_t i = 0; i < n; ++i) {
    packed[3 * i] = c.ops[i].kind;
    packed[3 * i + 1] = c.ops[i].target;
    packed[3 * i + 2] = c.ops[i].value;
  }
  stm::buffer<std::uint32_t> ops(Exec::where, std::max<std::size_t>(1, packed.size()));
  if (!packed.empty()) ops.upload(packed);
  stm::buffer<std::uint8_t> status(Exec::where, std::max<std::uint64_t>(1, n));
  const std::uint32_t* op = ops.data();
  std::uint8_t* sp = status.data();
  const auto s = seq.ref();
  const std::uint32_t threads = c.threads;
  outcome out;
  out.ops = n;
  out.seconds = Exec::run(threads, [=] STM_HD(std::uint32_t tid) {
    for (std::uint64_t i = tid; i < n; i += threads) {
      const auto r = op[3 * i] == 1 ? s.insert_after(tid, op[3 * i + 1], op[3 * i + 2]) : s.remove(tid, op[3 * i + 1]);
      sp[i] = static_cast<std::uint8_t>(r);
    }
  });
  std::vector<std::uint32_t> final_seq, after;
  std::string e = seq.check(&final_seq);
  seq.reclaim();
  if (e.empty()) e = seq.check(&after);
  if (e.empty() && after != final_seq) e = "reclaim() changed the sequence";
  auto st = status.to_vector();
  st.resize(n);
  std::vector<char> ok(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    ok[i] = st[i] == std::uint8_t(stm::op_status::ok);
    out.succeeded += ok[i];
    out.exhausted += st[i] == std::uint8_t(stm::op_status::full);
  }
  if (e.empty() && out.exhausted) e = "pool exhausted although sized for every insert";
  if (e.empty()) e = stm::list::seed::verify(c.initial, c.ops, ok, final_seq);
  std::vector<std::uint32_t> expect;
  if (e.empty()) {
    expect = stm::list::seed::replay(c.initial, c.ops);
    if (threads == 1 && expect != final_seq) e = "one thread, yet the list differs from the sequential replay";
  }
  out.final_size = final_seq.size();
  out.verified = e.empty();
  out.message = out.verified ? "final list (" + std::to_string(final_seq.size()) + " values; sequential replay: " +
                                   std::to_string(expect.size()) +
                                   ") is a valid concurrent outcome: conservation, order, no marked node reachable after reclaim()" +
                                   std::string(threads == 1 ? ", identical to the sequential replay" : "")
                             : e;
  return out;
}

}  // namespace bench_list
