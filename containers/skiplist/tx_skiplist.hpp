// containers/skiplist/tx_skiplist.hpp - stm::skiplist::tx_skiplist: an ordered
// set of 32-bit keys as a skiplist whose every operation is one PR-STM
// transaction (stm/tx.hpp), under any contention manager.
//
//   stm::skiplist::tx_skiplist set(stm::backend::gpu, capacity);   // 5 levels, one lock per word
//   auto s = set.ref();
//   // device / thread body, tid distinct per concurrent thread, < 2^19:
//   stm::skiplist::op_status st = s.insert<stm::cm::prstm>(tid, key);  // ok | exists | pool_exhausted | capacity
//   s.remove<CM>(tid, key);  bool hit; s.contains<CM>(tid, key, hit);
//   set.reclaim();                                                      // host, between launches
//
// Layout: the towers of lockfree_skiplist (detail/towers.hpp: one packed word
// per node and level, key and next), read and written only through the
// transaction. A walk reads, from the top level down, the predecessor's word
// at each level and every word it passes (the paper's "whole search path").
// An insert writes its node's word and its predecessor's at each level of its
// tower; a remove marks the victim's words and writes each predecessor past
// it. So two updates next to each other always write a common word and are
// ordered by write-write conflicts on the pre-locks, not by read validation
// alone. Removed nodes are reused only after reclaim() (quiescent point), so
// an invisible reader never sees a node change identity under it.
//
// Guarantees: every operation is one transaction, so operations are
// linearizable (serializable transactions whose effects appear at commit).
// Progress is the contention manager's (PR-STM: the system makes progress).
// "exists" and "not_found" are decided by a committed read-only transaction,
// never by a semantic abort: with commit-time validation (the default) an
// abort decided on a torn snapshot would not be retried.
//
// Read and write sets (tx_skiplist_config): a walk reads about
// levels + (nodes passed) words: at 5 levels over 10,000 keys some 40 on
// average and rarely above 100; the top level holds about keys / 4^(levels-1)
// nodes, so 256 reads fit 5 levels up to about 40,000 keys (each further
// level multiplies that by four). Writes: 2 per level of
// the tower, 32 for the deepest (16 levels). A longer walk ends with status
// capacity (the transaction aborts with abort_cause::capacity; nothing is
// changed), never silently; so does a manager's own limit (gpustm's lock
// log holds 128 distinct locks). Validation: the default validates at commit only
// (stm::tx_config<R, W, false>): a walk may meet words of different moments,
// so it checks what a consistent snapshot always shows (keys strictly
// increasing along a level, a node's words agreeing on its key, no marked or
// never-linked node reachable) and, on a contradiction, stops reading and
// commits nothing; the commit's validation then fails and the transaction
// is retried. A walk that cannot loop either: keys strictly increase.
// With an opaque config (tx_config<R, W, true>) every read re-validates the
// earlier ones (O(R^2) lock loads per walk).
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "cmp/prstm.hpp"
#include "containers/skiplist/detail/towers.hpp"
#include "stm/lock_table.hpp"
#include "stm/tx_macros.hpp"

namespace stm::skiplist {

/// Default descriptor of tx_skiplist operations (see the header).
using tx_skiplist_config = tx_config<256, 2 * max_levels, false>;

class tx_skiplist_ref {
 public:
  template <class CM = cm::prstm, class Config = tx_skiplist_config>
  STM_HD op_status insert(std::uint32_t tid, std::uint32_t key, tx_counters* counters = nullptr, CM cm = CM{}) const {
    const std::uint32_t fresh = t_.pool.allocate();
    if (fresh == node::head) return op_status::pool_exhausted;
    const std::uint32_t h = tower_height(key, t_.levels);
    t_.height[fresh] = h;  // private until our commit links the node
    transaction<CM, Config> tx(locks_, tid, cm);
    walk_result r;
    do {
      TX_BEGIN(tx) {
        walk(tx, key, r);
        if (tx.active() && r.consistent && !r.found) {
          for (std::uint32_t l = 0; l < h; ++l) {
            TX_WRITE(tx, t_.word(l, fresh), node::make(key, r.succ[l]));
            TX_WRITE(tx, t_.word(l, r.pred[l]), node::with_next(r.pred_word[l], fresh));
          }
        }
      }
      TX_END(tx);
    } while (tx.committed() && !r.consistent);  // defensive: a torn walk cannot pass validation
    if (counters) add(*counters, tx.counters());
    if (!tx.committed() || r.found) {
      t_.pool.retire(fresh);  // never published
      return tx.committed() ? op_status::exists : op_status::capacity;
    }
    return op_status::ok;
  }

  template <class CM = cm::prstm, class Config = tx_skiplist_config>
  STM_HD op_status remove(std::uint32_t tid, std::uint32_t key, tx_counters* counters = nullptr, CM cm = CM{}) const {
    transaction<CM, Config> tx(locks_, tid, cm);
    walk_result r;
    do {
      TX_BEGIN(tx) {
        walk(tx, key, r);
        if (tx.active() && r.consistent && r.found) {
          const std::uint32_t victim = r.succ[0];
          // Its tower: the levels where it follows the predecessor (in a
          // consistent snapshot exactly levels 0 .. height - 1).
          for (std::uint32_t l = 0; l < t_.levels && r.succ[l] == victim; ++l) {
            TX_WRITE(tx, t_.word(l, victim), node::with_mark(r.succ_word[l]));
            TX_WRITE(tx, t_.word(l, r.pred[l]), node::with_next(r.pred_word[l], node::next(r.succ_word[l])));
          }
        }
      }
      TX_END(tx);
    } while (tx.committed() && !r.consistent);
    if (counters) add(*counters, tx.counters());
    if (!tx.committed()) return op_status::capacity;
    if (!r.found) return op_status::not_found;
    t_.pool.retire(r.succ[0]);  // unlinked by our commit; reused after reclaim()
    return op_status::ok;
  }

  /// found = whether key is present. Returns ok, or capacity when the walk
  /// overflowed the read set (found is then meaningless).
  template <class CM = cm::prstm, class Config = tx_skiplist_config>
  STM_HD op_status contains(std::uint32_t tid, std::uint32_t key, bool& found, tx_counters* counters = nullptr,
                            CM cm = CM{}) const {
    transaction<CM, Config> tx(locks_, tid, cm);
    walk_result r;
    do {
      TX_BEGIN(tx) { walk(tx, key, r); }
      TX_END(tx);
    } while (tx.committed() && !r.consistent);
    if (counters) add(*counters, tx.counters());
    found = tx.committed() && r.found;
    return tx.committed() ? op_status::ok : op_status::capacity;
  }

  STM_HD std::uint32_t levels() const { return t_.levels; }

 private:
  friend class tx_skiplist;

  /// What a walk saw at each level: pred_word[l].next == succ[l], succ_word[l]
  /// the successor's word (0 for the tail).
  struct walk_result {
    std::uint32_t pred[max_levels];
    std::uint32_t succ[max_levels];
    node::word_t pred_word[max_levels];
    node::word_t succ_word[max_levels];
    bool consistent = false;
    bool found = false;
  };

  /// The search path of key, read through tx. Returns early when a read
  /// ends the attempt (!tx.active()) or the words read cannot belong to one
  /// committed state (r.consistent = false; see the header).
  template <class Tx>
  STM_HD void walk(Tx& tx, std::uint32_t key, walk_result& r) const {
    r.consistent = false;
    r.found = false;
    std::uint32_t pred = node::head, pred_key = 0;
    for (std::uint32_t l = t_.levels; l-- > 0;) {
      node::word_t pw = tx.read(t_.word(l, pred));
      if (!tx.active()) return;
      if (pred != node::head && (node::marked(pw) || node::key(pw) != pred_key)) return;
      std::uint32_t cur;
      node::word_t cw = 0;
      for (;;) {
        cur = node::next(pw);
        if (cur == node::tail) break;
        if (cur < 2 || cur >= t_.pool.stride) return;  // a word never linked (zero: next is the head)
        cw = tx.read(t_.word(l, cur));
        if (!tx.active()) return;
        if (node::marked(cw) || node::flag(cw)) return;
        const std::uint32_t k = node::key(cw);
        if (pred != node::head && k <= pred_key) return;
        if (k >= key) break;
        pred = cur;
        pred_key = k;
        pw = cw;
      }
      r.pred[l] = pred;
      r.pred_word[l] = pw;
      r.succ[l] = cur;
      r.succ_word[l] = cw;
    }
    r.consistent = true;
    r.found = r.succ[0] != node::tail && node::key(r.succ_word[0]) == key;
  }

  STM_HD static void add(tx_counters& into, const tx_counters& c) { into += c; }

  detail::towers_ref t_{};
  lock_table_ref locks_{};
};
static_assert(std::is_trivially_copyable_v<tx_skiplist_ref>);

/// Host owner: the towers and a lock table over all their words.
class tx_skiplist {
 public:
  /// capacity: user nodes (>= 1); levels: 1 .. max_levels; words_per_lock: the
  /// lock coverage (a power of two; 1: one lock per word, the paper's hash 1);
  /// lock_spread: lock words per slot (stm/lock_table.hpp; 0: automatic).
  tx_skiplist(backend where, std::uint64_t capacity, std::uint32_t levels = default_levels,
              std::uint32_t words_per_lock = 1, std::uint32_t lock_spread = 0)
      : towers_(where, capacity, levels),
        locks_(where, lock_count(towers_.ref(), words_per_lock), towers_.ref().pool.words,
               sizeof(node::word_t) * std::uint64_t(words_per_lock),
               lock_spread ? lock_spread : lock_table::auto_spread(lock_count(towers_.ref(), words_per_lock))) {
    ref_.t_ = towers_.ref();
    ref_.locks_ = locks_.ref();
  }

  tx_skiplist_ref ref() const { return ref_; }
  std::uint64_t capacity() const { return towers_.capacity(); }
  std::uint32_t levels() const { return towers_.levels(); }
  std::uint32_t num_locks() const { return locks_.size(); }
  std::uint64_t reclaim() { return towers_.reclaim(); }
  /// Quiescent point: empty the set and free every node (locks stay as they are: free).
  void clear() { towers_.clear(); }
  std::vector<std::uint32_t> to_vector() const {
    std::vector<std::uint32_t> out;
    const std::string e = check(&out);
    if (!e.empty()) throw std::logic_error("tx_skiplist: " + e);
    return out;
  }
  std::string check(std::vector<std::uint32_t>* keys = nullptr) const { return towers_.check(keys); }
  /// After a launch every lock must be free again.
  bool locks_free() const {
    for (auto word : locks_.snapshot())
      if (!lock_word::is_free(word)) return false;
    return true;
  }

 private:
  static std::uint64_t lock_count(const detail::towers_ref& t, std::uint32_t words_per_lock) {
    if (words_per_lock == 0 || (words_per_lock & (words_per_lock - 1)) != 0)
      throw usage_error("lock coverage must be a power of two of words, got " + std::to_string(words_per_lock));
    const std::uint64_t words = std::uint64_t(t.pool.stride) * t.levels;
    return (words + words_per_lock - 1) / words_per_lock;
  }
  detail::towers towers_;
  lock_table locks_;
  tx_skiplist_ref ref_{};
};

}  // namespace stm::skiplist
