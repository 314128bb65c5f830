// SPDX-License-Identifier: Apache-2.0
// workloads/skiplist/skiplist.hpp - the skiplist benchmark of the PR-STM paper
// (sections 4.4-4.5): an ordered set of `keys` initial entries (5,000), at most
// `levels` levels (5), under a random mix of inserts, removes and searches,
// run on the transactional skiplist (every operation one transaction, any
// contention manager) or on the native lock-free one, beside each other.
// Written once over an execution policy (cpu_exec / gpu_exec).
//
// Data: the initial keys are `keys` distinct values drawn from 0 .. range-1
// (range 2 x keys by default, so that about half the inserts and removes
// find something to do), put in before timing by the skiplist's assign() (a
// linear build on the host, the towers as inserts would make them). Each launch runs `ops`
// operations, drawn on the host from (seed, launch): kind by the mix, key
// uniform over the range; logical thread t runs operations t, t + threads, ...
// Timed mode (seconds > 0): launches follow each other until that much kernel
// time; the pool is reclaimed between them (the quiescent point).
//
// Verification after every launch (the run fails on the first fault):
//  - the structure (detail/towers.hpp): every level sorted, each level a
//    sublist of the one below, every reachable node linked at exactly the
//    levels of its tower, no marked node reachable, every node of the pool
//    reachable, free or retired, once; after reclaim() the same again;
//  - per key: set at the start of the launch + successful inserts -
//    successful removes is 0 or 1 and equals the key's presence at the end;
//  - nothing ran out: no full (pool exhausted) with the automatic pool size;
//  - tx: every operation committed exactly once (commit counter == operations
//    that did not end on capacity), every lock free afterwards.
// Capacity aborts (a walk longer than the read set) are counted and reported,
// and their operations verified as having had no effect.
//
// Map mode (map = true): the same mix as put (insert or assign: the value is
// the operation's index + 1, unique within the launch), erase and get, on
// both skiplists as maps. Verification per launch and key: every value a get
// returned and the final value are the key's value at the start of the launch
// or one that a put of the key wrote in it; a key without puts is present at
// the end only if it was at the start and no erase succeeded; a key whose
// erases succeeded more often than it had puts, plus one if present at the
// start, fails; tx: one commit per put and successful erase.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "containers/skiplist/lockfree_skiplist.hpp"
#include "containers/skiplist/tx_skiplist.hpp"
#include "stm/buffer.hpp"
#include "stm/error.hpp"
#include "stm/lock_table.hpp"
#include "stm/stats.hpp"

namespace stm::workloads::skiplist {

/// tx: the transactional skiplist (boosted over the lock-free one: key locks
/// through the transaction, the change applied natively after the commit);
/// native: the lock-free one.
enum class impl { tx, native };
inline const char* impl_name(impl i) { return i == impl::tx ? "tx" : "native"; }
inline bool transactional(impl i) { return i != impl::native; }

struct config {
  std::uint32_t keys = 5000;      // initial entries (the paper's 5,000)
  std::uint32_t range = 10000;    // keys are drawn from 0 .. range-1
  std::uint32_t levels = stm::skiplist::default_levels;
  std::uint64_t ops = 1000000;    // operations per launch
  double insert = 50, remove = 50;  // percent; the rest are searches
  std::uint32_t threads = 1536;
  std::uint32_t hash = 1;         // words per lock (the paper's lock coverage)
  double seconds = 0;             // > 0: launches until this much kernel time
  std::uint32_t min_launches = 1; // at least this many launches (tests of reclamation between them)
  std::uint64_t seed = 1;
  std::uint64_t pool = 0;         // nodes; 0: range + ops (every launch fits)
  bool map = false;               // the map: put / erase / get with values instead of insert / remove / contains
  stm::one_shot_mode one_shot = stm::default_one_shot_mode;  // tx: how its one-shot insert and remove (erase) run
};

struct outcome {
  double seconds = 0;        // kernel time of the timed launches
  std::uint64_t launches = 0, ops = 0;
  std::uint64_t inserted = 0, removed = 0, found = 0;  // successful insert / remove / contains
  std::uint64_t capacity = 0, exhausted = 0;
  std::uint64_t final_size = 0, pool = 0;
  stm::tx_stats stats;       // tx only
  bool verified = false;
  std::string message;
};

/// Throws stm::usage_error for a configuration that cannot run.
inline void check(const config& c) {
  if (c.keys == 0) throw stm::usage_error("--keys must be at least 1");
  if (c.range < c.keys)
    throw stm::usage_error("--range (" + std::to_string(c.range) + ") must be at least --keys (" + std::to_string(c.keys) + ")");
  if (c.range > (1u << 28)) throw stm::usage_error("--range must be at most 2^28, got " + std::to_string(c.range));
  if (c.levels < 1 || c.levels > stm::skiplist::max_levels)
    throw stm::usage_error("--levels must be between 1 and " + std::to_string(stm::skiplist::max_levels) + ", got " +
                           std::to_string(c.levels));
  if (c.ops == 0 || c.ops > (1ull << 31)) throw stm::usage_error("--ops must be between 1 and 2^31");
  if (!(c.insert >= 0 && c.remove >= 0 && c.insert + c.remove <= 100))
    throw stm::usage_error("the insert and remove shares must be percentages summing to at most 100");
  if (c.threads == 0) throw stm::usage_error("--threads must be at least 1");
  if (c.hash == 0 || (c.hash & (c.hash - 1)) != 0 || c.hash > (1u << 20))
    throw stm::usage_error("--hash must be a power of two from 1 to 2^20, got " + std::to_string(c.hash));
  if (!(c.seconds >= 0)) throw stm::usage_error("--seconds must not be negative");
  const std::uint64_t pool = c.pool ? c.pool : std::uint64_t(c.range) + c.ops;
  if (pool < c.keys) throw stm::usage_error("--pool must hold at least the --keys initial entries");
  if (pool + 2 > stm::list::node::max_index)
    throw stm::usage_error("the pool holds at most 2^30 nodes, asked for " + std::to_string(pool));
  stm::require_priorities(c.threads);
}

/// One launch's operations: kind 0 insert, 1 remove, 2 contains.
struct launch_ops {
  std::vector<std::uint32_t> kind, key;
};

/// The initial keys, in increasing order: `keys` distinct values of the range.
inline std::vector<std::uint32_t> initial_keys(const config& c) {
  std::mt19937_64 rng(c.seed);
  std::vector<std::uint32_t> all(c.range);
  for (std::uint32_t k = 0; k < c.range; ++k) all[k] = k;
  for (std::uint32_t i = 0; i < c.keys; ++i) std::swap(all[i], all[i + rng() % (c.range - i)]);  // partial Fisher-Yates
  all.resize(c.keys);
  std::sort(all.begin(), all.end());
  return all;
}

inline launch_ops make_ops(const config& c, std::uint64_t launch) {
  launch_ops d;
  std::mt19937_64 rng(c.seed * 0x9E3779B97F4A7C15ull + launch + 1);
  d.kind.resize(c.ops);
  d.key.resize(c.ops);
  std::uniform_real_distribution<double> pct(0, 100);
  for (std::uint64_t i = 0; i < c.ops; ++i) {
    const double p = pct(rng);
    d.kind[i] = p < c.insert ? 0 : p < c.insert + c.remove ? 1 : 2;
    d.key[i] = static_cast<std::uint32_t>(rng() % c.range);
  }
  return d;
}

/// Host check of one launch: before + successful inserts - successful removes
/// per key, 0 or 1, equal to the final presence. Updates `present`.
inline std::string verify_launch(const launch_ops& d, const std::vector<std::uint8_t>& st,
                                 const std::vector<std::uint32_t>& final_keys, std::vector<char>& present) {
  using stm::op_status;
  std::vector<std::int64_t> count(present.begin(), present.end());
  for (std::size_t i = 0; i < d.kind.size(); ++i) {
    if (st[i] != std::uint8_t(op_status::ok) || d.kind[i] == 2) continue;
    count[d.key[i]] += d.kind[i] == 0 ? 1 : -1;
  }
  std::vector<char> now(present.size(), 0);
  for (auto k : final_keys) {
    if (k >= present.size()) return "key " + std::to_string(k) + " was never inserted";
    now[k] = 1;
  }
  for (std::size_t k = 0; k < present.size(); ++k) {
    if (count[k] < 0 || count[k] > 1) return "key " + std::to_string(k) + ": successful inserts and removes do not alternate";
    if (count[k] != now[k])
      return "key " + std::to_string(k) + (now[k] ? " present" : " absent") + " but start + inserts - removes = " +
             std::to_string(count[k]);
  }
  present.swap(now);
  return "";
}

/// Either variant behind the one call the kernels make.
template <class CM>
struct any_skiplist {
  bool tx;
  stm::skiplist::tx_skiplist_ref<CM> t;
  stm::skiplist::lockfree_skiplist_ref n;
  STM_HD stm::op_status apply(std::uint32_t tid, std::uint32_t kind, std::uint32_t key,
                              stm::tx_counters* cnt) const {
    if (tx) {
      if (kind == 0) return t.insert(tid, key, cnt);
      if (kind == 1) return t.remove(tid, key, cnt);
      return t.contains(tid, key, cnt);
    }
    if (kind == 0) return n.insert(tid, key);
    if (kind == 1) return n.remove(tid, key);
    return n.contains(tid, key);
  }
  /// The map: kind 0 put(key, value), 1 erase(key), 2 get(key) -> value.
  STM_HD stm::op_status apply_map(std::uint32_t tid, std::uint32_t kind, std::uint32_t key, std::uint32_t& value,
                                  stm::tx_counters* cnt) const {
    if (tx) {
      if (kind == 0) return t.put(tid, key, value, cnt);
      if (kind == 1) return t.erase(tid, key, cnt);
      return t.get(tid, key, value, cnt);
    }
    if (kind == 0) return n.put(tid, key, value);
    if (kind == 1) return n.erase(tid, key);
    return n.get(tid, key, value);
  }
};

/// Host check of one map-mode launch (see the header). `start` holds each
/// key's value at the start (present[k] says whether it is there), `end` the
/// entries after the launch. Updates present and start.
inline std::string verify_map_launch(const launch_ops& d, const std::vector<std::uint8_t>& st,
                                     const std::vector<std::uint32_t>& got,
                                     const std::vector<std::pair<std::uint32_t, std::uint32_t>>& end,
                                     std::vector<char>& present, std::vector<std::uint32_t>& start) {
  using stm::op_status;
  const std::size_t n = d.kind.size(), range = present.size();
  // A put i of d.key[i] writes the value i + 1. Per key: how many puts and
  // successful erases.
  std::vector<std::uint32_t> puts(range, 0), erased(range, 0);
  for (std::size_t i = 0; i < n; ++i) {
    if (d.kind[i] == 0) {
      if (st[i] != std::uint8_t(op_status::ok)) return "put " + std::to_string(i) + " failed (status " + std::to_string(st[i]) + ")";
      ++puts[d.key[i]];
    }
    if (d.kind[i] == 1 && st[i] == std::uint8_t(op_status::ok)) ++erased[d.key[i]];
  }
  // A value v of key k is explained when it is k's start value (k present
  // at the start) or v - 1 indexes a put of k in this launch.
  auto explained = [&](std::uint32_t k, std::uint32_t v) {
    if (present[k] && v == start[k]) return true;
    return v >= 1 && v <= n && d.kind[v - 1] == 0 && d.key[v - 1] == k;
  };
  for (std::size_t i = 0; i < n; ++i)
    if (d.kind[i] == 2 && st[i] == std::uint8_t(op_status::ok) && !explained(d.key[i], got[i]))
      return "get " + std::to_string(i) + " of key " + std::to_string(d.key[i]) + " returned " + std::to_string(got[i]) +
             ", a value no put of the key wrote";
  std::vector<char> now(range, 0);
  std::vector<std::uint32_t> value(range, 0);
  for (const auto& [k, v] : end) {
    if (k >= range) return "key " + std::to_string(k) + " was never put";
    now[k] = 1;
    value[k] = v;
    // With puts of k in the launch, the last one linearized wrote the final value.
    const bool from_put = v >= 1 && v <= n && d.kind[v - 1] == 0 && d.key[v - 1] == k;
    if (puts[k] > 0 ? !from_put : !explained(k, v))
      return "key " + std::to_string(k) + " ends with " + std::to_string(v) + ", a value no put of it wrote";
  }
  for (std::size_t k = 0; k < range; ++k) {
    if (erased[k] > puts[k] + std::uint32_t(present[k]))
      return "key " + std::to_string(k) + ": more successful erases than puts and its start";
    if (puts[k] == 0 && now[k] != (present[k] && erased[k] == 0))
      return "key " + std::to_string(k) + " without puts: " + (now[k] ? "present" : "absent") + " at the end";
  }
  present.swap(now);
  start.swap(value);
  return "";
}

template <class Exec, class CM>
outcome run(const config& c, impl which, const CM& cm, void (*on_progress)(double) = nullptr) {
  using stm::op_status;
  check(c);
  const stm::backend where = Exec::where;
  outcome out;
  out.pool = c.pool ? c.pool : std::uint64_t(c.range) + c.ops;
  std::unique_ptr<stm::skiplist::tx_skiplist> txs;
  std::unique_ptr<stm::skiplist::lockfree_skiplist> nat;
  if (transactional(which)) {
    txs = std::make_unique<stm::skiplist::tx_skiplist>(where, out.pool, c.levels, c.hash);
    txs->set_one_shot(c.one_shot);
  }
  else nat = std::make_unique<stm::skiplist::lockfree_skiplist>(where, out.pool, c.levels);
  const any_skiplist<CM> s{transactional(which), txs ? txs->ref(cm) : stm::skiplist::tx_skiplist_ref<CM>{},
                           nat ? nat->ref() : stm::skiplist::lockfree_skiplist_ref{}};
  auto structure = [&](std::vector<std::uint32_t>* keys) { return txs ? txs->check(keys) : nat->check(keys); };
  auto reclaim = [&] { return txs ? txs->reclaim() : nat->reclaim(); };

  // The initial entries, before timing: built on the host in linear time
  // (towers of the same heights as inserts give them; the key locks clean),
  // then checked like every launch.
  const std::vector<std::uint32_t> initial = initial_keys(c);
  std::vector<char> present(c.range, 0);
  {
    if (txs) txs->assign(initial);
    else nat->assign(initial);
    std::vector<std::uint32_t> got;
    std::string e = structure(&got);
    if (e.empty() && got != initial)
      e = "the initial entries did not all go in (" + std::to_string(got.size()) + " of " + std::to_string(initial.size()) + ")";
    if (!e.empty()) {
      out.message = "after the initial entries: " + e;
      return out;
    }
    for (auto k : initial) present[k] = 1;
  }
  std::vector<std::uint32_t> start_value(c.range, 0);  // map mode: each key's value (assign() gave 0)

  stm::buffer<std::uint32_t> kind(where, c.ops), key(where, c.ops);
  stm::buffer<std::uint8_t> status(where, c.ops);
  stm::buffer<std::uint32_t> values(where, c.map ? c.ops : 1);  // map mode: put's value in, get's out
  std::uint32_t* vp = values.data();
  const bool map = c.map;
  stm::stats_block stats(where);
  const auto sr = stats.ref();
  const std::uint32_t* kp = kind.data();
  const std::uint32_t* yp = key.data();
  std::uint8_t* sp = status.data();
  const std::uint32_t threads = c.threads;
  const std::uint64_t n_ops = c.ops;
  std::string fault;
  do {
    const launch_ops d = make_ops(c, out.launches++);  // not timed: the application's input
    kind.upload(d.kind);
    key.upload(d.key);
    if (map) {
      std::vector<std::uint32_t> v(c.ops);
      for (std::uint64_t i = 0; i < c.ops; ++i) v[i] = static_cast<std::uint32_t>(i + 1);  // a put's value; a get overwrites it
      values.upload(v);
    }
    out.seconds += Exec::run(threads, [=] STM_HD(std::uint32_t tid) {
      stm::tx_counters cnt;
      if (map) {
        for (std::uint64_t i = tid; i < n_ops; i += threads)
          sp[i] = static_cast<std::uint8_t>(s.apply_map(tid, kp[i], yp[i], vp[i], &cnt));
      } else {
        for (std::uint64_t i = tid; i < n_ops; i += threads) sp[i] = static_cast<std::uint8_t>(s.apply(tid, kp[i], yp[i], &cnt));
      }
      if (s.tx) sr.add(cnt);
    });
    out.ops += c.ops;
    const std::vector<std::uint8_t> st = status.to_vector();
    std::uint64_t cap = 0;
    for (std::size_t i = 0; i < st.size(); ++i) {
      const bool ok = st[i] == std::uint8_t(op_status::ok);
      out.inserted += ok && d.kind[i] == 0;
      out.removed += ok && d.kind[i] == 1;
      out.found += ok && d.kind[i] == 2;
      cap += st[i] == std::uint8_t(op_status::capacity);
      out.exhausted += st[i] == std::uint8_t(op_status::full);
    }
    out.capacity += cap;
    std::vector<std::uint32_t> final_keys;
    fault = structure(&final_keys);
    if (fault.empty()) {
      if (map) {
        const auto end = txs ? txs->entries() : nat->entries();
        fault = verify_map_launch(d, st, values.to_vector(), end, present, start_value);
      } else {
        fault = verify_launch(d, st, final_keys, present);
      }
    }
    if (fault.empty() && txs && !txs->locks_free()) fault = "a lock is still held after the launch";
    if (fault.empty() && c.pool == 0 && out.exhausted) fault = "pool exhausted although sized for every insert";
    reclaim();
    std::vector<std::uint32_t> after;
    if (fault.empty()) fault = structure(&after);
    if (fault.empty() && after != final_keys) fault = "reclaim() changed the set";
    out.final_size = final_keys.size();
    if (!fault.empty()) {
      fault = "launch " + std::to_string(out.launches - 1) + ": " + fault;
      break;
    }
    if (on_progress && c.seconds > 0) on_progress(out.seconds / c.seconds);
  } while (out.seconds < c.seconds || out.launches < c.min_launches);

  if (txs) {
    out.stats = stats.read();
    // Only an insert or remove that changed the set commits (a search, exists
    // and not_found are answered without one); in map mode every put commits.
    if (fault.empty() && out.stats.commits != out.inserted + out.removed)
      fault = "commit counter " + std::to_string(out.stats.commits) + " != successful " +
              (map ? "puts and erases " : "inserts and removes ") + std::to_string(out.inserted + out.removed);
  }
  out.verified = fault.empty();
  out.message = out.verified ? std::string(map ? "every launch: every value got and every final value written by a put "
                                               "of its key (or the start's), presence consistent with the puts and "
                                               "successful erases per key; "
                                             : "every launch: final set == start + successful inserts - successful "
                                               "removes per key; ") +
                                   "levels sorted, each a sublist of the one below, no marked node reachable, every node "
                                   "accounted for" +
                                   std::string(txs ? "; one commit per successful update, locks free" : "")
                             : fault;
  return out;
}

}  // namespace stm::workloads::skiplist
