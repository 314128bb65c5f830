// SPDX-License-Identifier: Apache-2.0
// stm/history_check.hpp - check a recorded history (stm/history.hpp) for
// serializability and opacity, on the host.
//
//   stm::recorded_history h = hist.read();
//   stm::history_check_options opt;
//   opt.initial = [&](std::uint64_t addr) { return initial_bits_of(addr); };  // default: 0
//   stm::history_report r = stm::check_history(h, opt);
//   if (!r.ok) std::cerr << r.explanation;
//
// What is checked
//  1. The writers' order (and, if asked, that memory ends with each
//     location's last write): per lock, the committed writes installed distinct
//     commit sequences 1..n with no gap (a gap is a commit missing from the
//     log); per location the writers are ordered by those sequences.
//  2. Every read returned the value of the write it claims: the last write of
//     its location with a sequence at most the one it observed, or the
//     location's initial value when there is none.
//  3. Serializability: the direct serialization graph of the committed
//     transactions (Adya): write-read edges (writer -> reader of its value),
//     write-write edges (consecutive writers of a location) and read-write
//     anti-dependency edges (reader -> the next writer of the value it read)
//     has no cycle.
//  4. Opacity: every attempt whose values a body saw, aborted ones included
//     (recorded with Opaque = true, or every one with opacity_of_every_attempt),
//     joins the graph as a read-only transaction, and the graph stays acyclic:
//     one serialization order has all its reads current at one point (each
//     read between its writer and that location's next writer).
// A failure explains itself minimally: the shortest cycle through the edge
// that closed it, edge by edge (for an aborted attempt: the two of its reads
// that cannot coexist), or the one read whose value does not match.
// Real-time order between transactions is not recorded, so not checked.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <iterator>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "stm/history.hpp"

namespace stm {

struct history_check_options {
  /// Initial bits of a location (the value a read sees before any commit).
  /// Empty (nullptr): unknown, as for a container's memory filled before the
  /// recorded run; the first read of a location's initial value then fixes
  /// it, and every other read of it must agree.
  std::function<std::uint64_t(std::uint64_t addr)> initial = [](std::uint64_t) { return std::uint64_t(0); };
  /// Check the aborted attempts recorded with Opaque = false too (they are
  /// allowed to see torn snapshots: only a test of the checker asks for this).
  bool opacity_of_every_attempt = false;
  /// When set: the bits at a location after the run, which must be those of
  /// its last write (locations no commit wrote are not looked at).
  std::function<std::uint64_t(std::uint64_t addr)> final_value;
};

struct history_report {
  bool ok = true;
  std::string explanation;  // empty when ok
  std::uint64_t commits = 0, read_only_commits = 0, aborted_attempts = 0, reads = 0, writes = 0, edges = 0;
  std::uint64_t dropped_aborts = 0, uncertain_reads = 0;  // not checked: counted
  double seconds = 0;

  std::string summary() const {
    std::ostringstream o;
    o << commits << " commits (" << read_only_commits << " read-only), " << aborted_attempts
      << " aborted attempts checked (" << dropped_aborts << " dropped, " << uncertain_reads
      << " uncertain reads skipped), " << reads << " reads, " << writes << " writes, " << edges << " edges, "
      << seconds << " s";
    return o.str();
  }
};

namespace detail {

class history_checker {
 public:
  history_checker(const recorded_history& h, const history_check_options& opt) : h_(h), opt_(opt) {}

  history_report run() {
    const auto t0 = std::chrono::steady_clock::now();
    r_.dropped_aborts = h_.dropped_aborts;
    if (h_.dropped_commits != 0) {
      fail_with("incomplete history: " + std::to_string(h_.dropped_commits) +
                " committed transactions did not fit in the log (give the history more room)");
    } else if (build_writes() && check_final() && build_reads()) {
      build_graph();
      // Serializability first (committed transactions only), then opacity.
      if (!find_cycle(n_commits_)) find_cycle(n_nodes_);
    }
    r_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r_;
  }

 private:
  enum kind : std::uint8_t { wr, ww, rw };
  struct write_ref {
    std::uint64_t addr, seq;
    std::uint32_t lock, node;
    std::uint64_t op;  // global op index
  };
  struct edge {
    std::uint32_t from, to;
    std::uint64_t op;  // wr/rw: the read; ww: the later write
    kind k;
  };

  const history_op& op(std::uint64_t g) const {
    return g < h_.commit_ops.size() ? h_.commit_ops[g] : h_.abort_ops[g - h_.commit_ops.size()];
  }
  const history_attempt& attempt(std::uint32_t node) const {
    return node < n_commits_ ? h_.commits[node] : h_.aborts[abort_node_[node - n_commits_]];
  }
  std::uint64_t op_base(std::uint32_t node) const {
    return node < n_commits_ ? attempt(node).first_op : h_.commit_ops.size() + attempt(node).first_op;
  }
  std::uint32_t lock_of(std::uint64_t addr) const {
    return h_.table.index_of(reinterpret_cast<const void*>(static_cast<std::uintptr_t>(addr)));
  }
  static std::string hex(std::uint64_t v) {
    std::ostringstream o;
    o << "0x" << std::hex << v;
    return o.str();
  }
  std::string name(std::uint32_t node) const {
    const history_attempt& a = attempt(node);
    std::ostringstream o;
    if (node < n_commits_) o << "committed T" << node;
    else o << "aborted attempt A" << (node - n_commits_);
    o << " (thread " << a.tid << ", attempt " << a.attempt << ")";
    return o.str();
  }
  void fail_with(const std::string& why) {
    r_.ok = false;
    r_.explanation = why;
  }

  // 1. Writers' order.
  bool build_writes() {
    n_commits_ = static_cast<std::uint32_t>(h_.commits.size());
    for (std::uint32_t n = 0; n < n_commits_; ++n) {
      const history_attempt& a = h_.commits[n];
      if (a.first_op + a.n_reads + a.n_writes > h_.commit_ops.size()) {
        fail_with("corrupt history: " + name(n) + " has accesses beyond the log");
        return false;
      }
      ++r_.commits;
      if (a.n_writes == 0) ++r_.read_only_commits;
      for (std::uint32_t i = 0; i < a.n_writes; ++i) {
        const std::uint64_t g = a.first_op + a.n_reads + i;
        const history_op& w = h_.commit_ops[g];
        if (w.seq == 0 || (w.seq & history_op::uncertain_bit)) {
          fail_with(name(n) + " wrote " + hex(w.addr) + " without a commit sequence (its lock was not held)");
          return false;
        }
        writes_.push_back(write_ref{w.addr, w.seq, lock_of(w.addr), n, g});
      }
    }
    r_.writes = writes_.size();
    // Per lock: distinct sequences 1..n.
    std::vector<write_ref> by_lock = writes_;
    std::sort(by_lock.begin(), by_lock.end(), [](const write_ref& a, const write_ref& b) {
      return a.lock != b.lock ? a.lock < b.lock : a.seq < b.seq;
    });
    for (std::size_t i = 0; i < by_lock.size(); ++i) {
      const write_ref& w = by_lock[i];
      const bool first_of_lock = i == 0 || by_lock[i - 1].lock != w.lock;
      const std::uint64_t prev = first_of_lock ? 0 : by_lock[i - 1].seq;
      if (!first_of_lock && prev == w.seq && by_lock[i - 1].node != w.node) {
        fail_with("two commits installed sequence " + std::to_string(w.seq) + " of lock " + std::to_string(w.lock) +
                  ": " + name(by_lock[i - 1].node) + " and " + name(w.node) + " (final locks held together)");
        return false;
      }
      if (w.seq > prev + 1) {
        fail_with("lock " + std::to_string(w.lock) + ": no commit in the log installed sequence " +
                  std::to_string(prev + 1) + " (next: " + std::to_string(w.seq) +
                  "): a transaction committed without recording (no record_into?)");
        return false;
      }
      if (i + 1 == by_lock.size() || by_lock[i + 1].lock != w.lock) max_seq_.push_back({w.lock, w.seq});
    }
    // Per location, in sequence order.
    std::sort(writes_.begin(), writes_.end(), [](const write_ref& a, const write_ref& b) {
      return a.addr != b.addr ? a.addr < b.addr : a.seq < b.seq;
    });
    return true;
  }

  bool check_final() {
    if (!opt_.final_value) return true;
    for (std::size_t i = 0; i < writes_.size(); ++i)
      if (i + 1 == writes_.size() || writes_[i + 1].addr != writes_[i].addr) {
        const std::uint64_t now = opt_.final_value(writes_[i].addr), last = op(writes_[i].op).value;
        if (now != last) {
          fail_with("memory at " + hex(writes_[i].addr) + " holds " + hex(now) + " after the run, but its last write, by " +
                    name(writes_[i].node) + " (sequence " + std::to_string(writes_[i].seq) + "), wrote " + hex(last));
          return false;
        }
      }
    return true;
  }

  std::uint64_t max_seq_of(std::uint32_t lock) const {
    const auto it = std::lower_bound(max_seq_.begin(), max_seq_.end(), std::pair<std::uint32_t, std::uint64_t>{lock, 0});
    return it != max_seq_.end() && it->first == lock ? it->second : 0;
  }

  // 2. Reads, and the nodes of the aborted attempts.
  bool build_reads() {
    for (std::uint32_t j = 0; j < h_.aborts.size(); ++j) {
      const history_attempt& a = h_.aborts[j];
      if (a.first_op + a.n_reads > h_.abort_ops.size()) {
        fail_with("corrupt history: aborted attempt " + std::to_string(j) + " has reads beyond the log");
        return false;
      }
      if (a.opaque() || opt_.opacity_of_every_attempt) abort_node_.push_back(j);
    }
    r_.aborted_attempts = abort_node_.size();
    n_nodes_ = n_commits_ + static_cast<std::uint32_t>(abort_node_.size());
    for (std::uint32_t n = 0; n < n_nodes_; ++n) {
      const history_attempt& a = attempt(n);
      for (std::uint32_t i = 0; i < a.n_reads; ++i)
        if (!check_read(n, op_base(n) + i)) return false;
    }
    return true;
  }

  bool check_read(std::uint32_t node, std::uint64_t g) {
    const history_op& rd = op(g);
    ++r_.reads;
    if (rd.seq & history_op::uncertain_bit) {
      if (node < n_commits_) {
        fail_with(name(node) + " read " + hex(rd.addr) + " while a commit held its lock or moved its version, and still committed");
        return false;
      }
      ++r_.uncertain_reads;
      return true;
    }
    const std::uint32_t lock = lock_of(rd.addr);
    if (rd.seq > max_seq_of(lock)) {
      fail_with(name(node) + " read " + hex(rd.addr) + " claiming sequence " + std::to_string(rd.seq) + " of lock " +
                std::to_string(lock) + ", which no logged commit installed");
      return false;
    }
    // The location's writers: [lo, hi) of writes_; the claimed one is the last
    // with seq <= rd.seq.
    const auto lo = std::lower_bound(writes_.begin(), writes_.end(), rd.addr,
                                     [](const write_ref& w, std::uint64_t a) { return w.addr < a; });
    const auto hi = std::upper_bound(lo, writes_.end(), rd.addr,
                                     [](std::uint64_t a, const write_ref& w) { return a < w.addr; });
    const auto next = std::upper_bound(lo, hi, rd.seq, [](std::uint64_t s, const write_ref& w) { return s < w.seq; });
    const bool initial = next == lo;
    const std::uint64_t expect = !initial        ? op(std::prev(next)->op).value
                                 : opt_.initial ? opt_.initial(rd.addr)
                                                : learned_.emplace(rd.addr, rd.value).first->second;
    if (expect != rd.value) {
      std::ostringstream o;
      o << name(node) << " read " << hex(rd.addr) << " = " << hex(rd.value) << " claiming sequence " << rd.seq
        << " of lock " << lock << ", but ";
      if (initial) o << "no commit up to that sequence wrote it and its initial value is " << hex(expect);
      else o << "the last write of it up to that sequence, by " << name(std::prev(next)->node) << " (sequence "
             << std::prev(next)->seq << "), wrote " << hex(expect);
      fail_with(o.str());
      return false;
    }
    if (!initial) {
      const std::uint32_t w = std::prev(next)->node;
      if (w == node) {
        fail_with(name(node) + " read " + hex(rd.addr) + " from its own write, before committing it");
        return false;
      }
      edges_.push_back(edge{w, node, g, wr});
    }
    if (next != hi && next->node != node) edges_.push_back(edge{node, next->node, g, rw});
    return true;
  }

  // 3. The graph (CSR).
  void build_graph() {
    for (std::size_t i = 1; i < writes_.size(); ++i)
      if (writes_[i].addr == writes_[i - 1].addr && writes_[i].node != writes_[i - 1].node)
        edges_.push_back(edge{writes_[i - 1].node, writes_[i].node, writes_[i].op, ww});
    r_.edges = edges_.size();
    start_.assign(n_nodes_ + 1, 0);
    for (const edge& e : edges_) ++start_[e.from + 1];
    for (std::uint32_t n = 0; n < n_nodes_; ++n) start_[n + 1] += start_[n];
    out_.resize(edges_.size());
    std::vector<std::uint64_t> fill(start_.begin(), start_.end() - 1);
    for (std::uint64_t i = 0; i < edges_.size(); ++i) out_[fill[edges_[i].from]++] = i;
  }

  // A cycle among nodes [0, limit): iterative DFS; on a back edge u -> v the
  // shortest path v ~> u (BFS) closes the reported cycle.
  bool find_cycle(std::uint32_t limit) {
    std::vector<std::uint8_t> color(limit, 0);  // 0 white, 1 on the stack, 2 done
    std::vector<std::pair<std::uint32_t, std::uint64_t>> stack;  // node, next out-edge
    for (std::uint32_t root = 0; root < limit; ++root) {
      if (color[root]) continue;
      stack.push_back({root, start_[root]});
      color[root] = 1;
      while (!stack.empty()) {
        auto& [u, it] = stack.back();
        if (it == start_[u + 1]) {
          color[u] = 2;
          stack.pop_back();
          continue;
        }
        const edge& e = edges_[out_[it++]];
        if (e.to >= limit) continue;
        if (color[e.to] == 1) {
          report_cycle(e, limit);
          return true;
        }
        if (color[e.to] == 0) {
          color[e.to] = 1;
          stack.push_back({e.to, start_[e.to]});
        }
      }
    }
    return false;
  }

  void report_cycle(const edge& closing, std::uint32_t limit) {
    // BFS from closing.to to closing.from.
    std::vector<std::uint64_t> via(limit, ~std::uint64_t(0));  // edge index that reached a node
    std::deque<std::uint32_t> q{closing.to};
    std::vector<std::uint8_t> seen(limit, 0);
    seen[closing.to] = 1;
    while (!q.empty() && !seen[closing.from]) {
      const std::uint32_t u = q.front();
      q.pop_front();
      for (std::uint64_t it = start_[u]; it < start_[u + 1]; ++it) {
        const edge& e = edges_[out_[it]];
        if (e.to < limit && !seen[e.to]) {
          seen[e.to] = 1;
          via[e.to] = out_[it];
          q.push_back(e.to);
        }
      }
    }
    std::vector<const edge*> cycle{&closing};
    for (std::uint32_t n = closing.from; n != closing.to; n = edges_[via[n]].from) cycle.push_back(&edges_[via[n]]);
    std::reverse(cycle.begin(), cycle.end());  // closing.to ~> closing.from, then the closing edge
    std::ostringstream o;
    const edge* in = nullptr;  // into the first aborted attempt on the cycle, and out of it
    const edge* out = nullptr;
    for (std::size_t i = 0; i < cycle.size() && !in; ++i)
      if (cycle[i]->to >= n_commits_) {
        in = cycle[i];
        out = cycle[(i + 1) % cycle.size()];
      }
    if (in && out) {
      const history_op& a = op(out->op);
      const history_op& b = op(in->op);
      o << "not opaque: " << name(in->to) << " read " << hex(a.addr) << " = " << hex(a.value) << " and "
        << hex(b.addr) << " = " << hex(b.value) << ", which cannot coexist: " << name(out->to)
        << " overwrote the first";
      if (out->to == in->from) o << " and wrote the second";
      else o << ", and it precedes " << name(in->from) << ", which wrote the second";
      o << " (cycle of " << cycle.size() << " edges):\n";
    } else {
      o << "not serializable: a cycle of " << cycle.size() << " dependencies among committed transactions:\n";
    }
    for (const edge* e : cycle) {
      const history_op& x = op(e->op);
      o << "  " << name(e->from) << " -> " << name(e->to) << ": ";
      if (e->k == wr)
        o << "wr: the second read " << hex(x.addr) << " = " << hex(x.value) << ", written by the first";
      else if (e->k == ww)
        o << "ww: the second overwrote " << hex(x.addr) << " (sequence " << x.seq << ") after the first";
      else
        o << "rw: the first read " << hex(x.addr) << " = " << hex(x.value) << " (sequence " << x.seq
          << "), the second overwrote that value";
      o << "\n";
    }
    // Each transaction on the cycle with all its accesses: which reads were
    // validated together, and whether it was read-only.
    for (const edge* e : cycle) o << "  " << name(e->to) << ": " << accesses(e->to) << "\n";
    fail_with(o.str());
  }

  // "reads a = v (sequence s), ...; writes a = v (sequence s), ..." of one node.
  std::string accesses(std::uint32_t node) const {
    const history_attempt& a = attempt(node);
    std::ostringstream o;
    auto list = [&](std::uint64_t first, std::uint32_t n) {
      for (std::uint32_t i = 0; i < n; ++i) {
        const history_op& x = op(first + i);
        o << (i ? ", " : "") << hex(x.addr) << " = " << hex(x.value) << " (sequence "
          << (x.seq & ~history_op::uncertain_bit) << ((x.seq & history_op::uncertain_bit) ? ", uncertain" : "") << ")";
      }
    };
    const std::uint64_t base = op_base(node);
    o << "reads ";
    list(base, a.n_reads);
    if (a.n_writes == 0) o << "; read-only";
    else {
      o << "; writes ";
      list(base + a.n_reads, a.n_writes);
    }
    return o.str();
  }

  const recorded_history& h_;
  const history_check_options& opt_;
  std::unordered_map<std::uint64_t, std::uint64_t> learned_;  // initial values seen, when opt_.initial is empty
  history_report r_;
  std::uint32_t n_commits_ = 0, n_nodes_ = 0;
  std::vector<std::uint32_t> abort_node_;  // node n_commits_ + j -> index into h_.aborts
  std::vector<write_ref> writes_;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> max_seq_;  // (lock, last sequence), by lock
  std::vector<edge> edges_;
  std::vector<std::uint64_t> start_, out_;
};

}  // namespace detail

/// Check `h` (see the top of this file). Host only.
inline history_report check_history(const recorded_history& h, const history_check_options& opt = {}) {
  return detail::history_checker(h, opt).run();
}

}  // namespace stm
