// containers/skiplist/tx_skiplist.hpp - stm::skiplist::tx_skiplist: an ordered
// set of 32-bit keys as a skiplist whose every operation is one PR-STM
// transaction (stm/tx.hpp), under any contention manager.
//
//   stm::skiplist::tx_skiplist set(stm::backend::gpu, capacity);   // 5 levels, one lock per word
//   auto s = set.ref();                    // manager stm::cm::prstm; set.ref<CM, Config>() or set.ref(cm)
//   // device / thread body, tid distinct per concurrent thread, < 2^19:
//   stm::op_status st = s.insert(tid, key);  // ok | exists | full (pool exhausted) | capacity
//   s.remove(tid, key);                      // ok | not_found | capacity
//   s.contains(tid, key);                    // ok (present) | not_found | capacity
//   std::uint32_t n; s.count(tid, lo, hi, n);  // ok (n keys in [lo, hi)) | capacity
//   set.reclaim();                           // host, between launches
//   // on a caller's transaction (opaque descriptor), as tx_set:
//   //   s.insert(tx, key, slot), s.remove(tx, key, slot), s.contains(tx, key), s.count(tx, lo, hi, n);
//   //   then s.settle(tx, slot)
//   // set.ref(cm, stm::skiplist::tx_search::full_path): every word a search passes read through the transaction
//
// Layout: the towers of lockfree_skiplist (detail/towers.hpp: one packed word
// per node and level, key and next), written only through the transaction.
//
// Search (tx_search::window, the default). Only the words an operation's
// outcome depends on are read through the transaction: at each level l below
// `need` (1 for contains, the key's tower height for insert and remove; the
// height is a function of the key) the predecessor's word and the
// successor's. The descent that finds them reads the words it passes with
// plain atomic loads, as hints: in the spirit of early release (Herlihy et
// al., DSTM, PODC 2003) and of elastic transactions (Felber, Gramoli and
// Guerraoui, DISC 2009), the nodes a search merely passes are not part of the
// transaction's read set, so an update elsewhere on the path (above all on
// the top levels, which every search crosses) does not abort it. Why the
// outcome is still a fact of the committed snapshot S: in every committed
// state a user node's level-l word is unmarked with a next other than the
// head (index 0) exactly while the node is linked at level l (an insert
// writes its words and links them in one transaction, a remove marks and
// unlinks in one; a level never linked holds zero, or the marked word of a
// removed incarnation, since nodes are reused only after reclaim()). So a
// transactional read of pred's word that shows it live with key < k and next
// = succ, and of succ's word that shows it live (or succ the tail) with key
// >= k, proves (pred, succ) the window of k at level l in S; the level below
// then starts at pred, linked at l hence at l - 1. A hint whose predecessor
// is no longer live (removed meanwhile) is given up: the level restarts from
// the level above's predecessor, or, at the top transactional level, the
// whole descent runs again (hint_tries times, then with every word read
// through the transaction, as tx_search::full_path). An insert writes its
// node's word and its predecessor's at each level of its tower; a remove
// marks the victim's words and writes each predecessor past it; so two
// updates next to each other write a common word or one reads what the other
// writes. Removed nodes are reused only after reclaim() (quiescent point), so
// an invisible reader never sees a node change identity under it.
//
// tx_search::full_path reads every word the search passes through the
// transaction (the paper's "whole search path"), for comparison: at 5 levels
// over 5,000 keys some 30 transactional reads per operation, against 2 to 3
// for the window (2 per level of the tower; contains reads level 0 only).
//
// Composition: as every transactional container (containers/stack/tx.hpp
// says what a caller must do; list/detail/node_pool.hpp's node_slot what
// settle() does). A composed operation needs an opaque descriptor: the checks
// below then never fire, and what it returns is a fact of one snapshot.
//
// Guarantees: every operation is one transaction (its own or the caller's),
// so operations are linearizable (serializable transactions whose effects appear at commit).
// Progress is the contention manager's (PR-STM: the system makes progress).
// "exists" and "not_found" are decided by a committed read-only transaction,
// never by a semantic abort: with commit-time validation (the default) an
// abort decided on a torn snapshot would not be retried.
//
// Read and write sets (tx_skiplist_config): a window search reads 2 words per
// level it needs, a few more when a hint went stale; a full-path one about
// levels + (nodes passed) words: at 5 levels over 10,000 keys some 40 on
// average and rarely above 100; the top level holds about keys / 4^(levels-1)
// nodes, so 256 reads fit 5 levels up to about 40,000 keys (each further
// level multiplies that by four); a window search falls back to it only after
// hint_tries stale hints. Writes: 2 per level of the tower, 32 for the
// deepest (16 levels). count() reads every key in its range plus 2. A longer
// operation ends with status capacity (the transaction aborts with
// abort_cause::capacity; nothing is changed), never silently; so does a
// manager's own limit (gpustm's lock log holds 128 distinct locks).
// Validation: the default validates at commit only (stm::tx_config<R, W,
// false>): the words a search reads, hinted or transactional, may be of
// different moments, so it checks what a consistent snapshot always shows of
// the transactional ones (keys strictly increasing along a level, a node's
// words agreeing on its key, no marked or never-linked node reachable) and,
// on a contradiction, stops reading and commits nothing; the commit's
// validation then fails and the transaction is retried. Neither kind of read
// can make a search loop or leave the pool: every step goes to a node of the
// pool with a strictly greater key. With an opaque config (tx_config<R, W,
// true>) every read re-validates the earlier ones (O(R^2) lock loads per
// walk, O(R) with the lock table's commit clock while no update commits).
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "cmp/prstm.hpp"
#include "containers/detail/tx_ops.hpp"
#include "containers/skiplist/detail/towers.hpp"
#include "stm/lock_table.hpp"
#include "stm/tx_macros.hpp"

namespace stm::skiplist {

/// How a tx_skiplist operation searches (see the header): window reads
/// through the transaction only the words its outcome depends on, full_path
/// every word it passes.
enum class tx_search : std::uint8_t { window, full_path };

/// Default descriptor of tx_skiplist operations (see the header).
using tx_skiplist_config = tx_config<256, 2 * max_levels, false>;

/// Kernel handle of a tx_skiplist: CM and Config are the manager and the
/// descriptor of its one-shot operations.
template <class CM = cm::prstm, class Config = tx_skiplist_config>
class tx_skiplist_ref {
  struct walk_result;

 public:
  using contention_manager = CM;
  using config = Config;

  /// Window searches whose hints went stale before one falls back to the full path.
  static constexpr std::uint32_t hint_tries = 2;

  /// One transaction of its own: ok, exists, full (no free node until
  /// reclaim()), or capacity.
  STM_HD op_status insert(std::uint32_t tid, std::uint32_t key, tx_counters* counters = nullptr) const {
    node_slot slot;
    slot.node = t_.pool.allocate();
    if (slot.node == node::head) return op_status::full;
    transaction<CM, Config> tx(locks_, tid, cm_);
    walk_result r;
    op_status st = op_status::ok;
    do {
      TX_BEGIN(tx) { st = insert_in(tx, key, slot, r); }
      TX_END(tx);
    } while (tx.committed() && !r.consistent);  // defensive: a torn walk cannot pass validation
    settle(tx, slot);
    if (counters) *counters += tx.counters();
    return tx.committed() ? st : op_status::capacity;
  }

  /// One transaction of its own: ok, not_found, or capacity.
  STM_HD op_status remove(std::uint32_t tid, std::uint32_t key, tx_counters* counters = nullptr) const {
    node_slot slot;
    transaction<CM, Config> tx(locks_, tid, cm_);
    walk_result r;
    op_status st = op_status::ok;
    do {
      TX_BEGIN(tx) { st = remove_in(tx, key, slot, r); }
      TX_END(tx);
    } while (tx.committed() && !r.consistent);
    settle(tx, slot);
    if (counters) *counters += tx.counters();
    return tx.committed() ? st : op_status::capacity;
  }

  /// One transaction of its own: ok (present), not_found, or capacity.
  STM_HD op_status contains(std::uint32_t tid, std::uint32_t key, tx_counters* counters = nullptr) const {
    transaction<CM, Config> tx(locks_, tid, cm_);
    walk_result r;
    op_status st = op_status::ok;
    do {
      TX_BEGIN(tx) { st = contains_in(tx, key, r); }
      TX_END(tx);
    } while (tx.committed() && !r.consistent);
    if (counters) *counters += tx.counters();
    return tx.committed() ? st : op_status::capacity;
  }

  /// One transaction of its own: n = how many keys k with lo <= k < hi the
  /// set holds (0 when hi <= lo, without a transaction). ok, or capacity
  /// (the range held more keys than the read set; n is then 0).
  STM_HD op_status count(std::uint32_t tid, std::uint32_t lo, std::uint32_t hi, std::uint32_t& n,
                         tx_counters* counters = nullptr) const {
    n = 0;
    if (hi <= lo) return op_status::ok;
    transaction<CM, Config> tx(locks_, tid, cm_);
    walk_result r;
    do {
      TX_BEGIN(tx) { count_in(tx, lo, hi, n, r); }
      TX_END(tx);
    } while (tx.committed() && !r.consistent);
    if (counters) *counters += tx.counters();
    if (!tx.committed()) n = 0;
    return tx.committed() ? op_status::ok : op_status::capacity;
  }

  /// On the caller's open transaction (built on locks(), opaque): ok, exists,
  /// full, or aborted. Call settle(tx, slot) after the transaction.
  template <class Tx, class = containers::detail::if_transaction<Tx>>
  STM_HD op_status insert(Tx& tx, std::uint32_t key, node_slot& slot) const {
    STM_COMPOSED_OP(Tx, tx);
    walk_result r;
    return insert_in(tx, key, slot, r);
  }
  /// On the caller's open transaction: ok, not_found, or aborted. Call
  /// settle(tx, slot) after the transaction.
  template <class Tx, class = containers::detail::if_transaction<Tx>>
  STM_HD op_status remove(Tx& tx, std::uint32_t key, node_slot& slot) const {
    STM_COMPOSED_OP(Tx, tx);
    walk_result r;
    return remove_in(tx, key, slot, r);
  }
  /// On the caller's open transaction: ok (present), not_found, or aborted.
  template <class Tx, class = containers::detail::if_transaction<Tx>>
  STM_HD op_status contains(Tx& tx, std::uint32_t key) const {
    STM_COMPOSED_OP(Tx, tx);
    walk_result r;
    return contains_in(tx, key, r);
  }
  /// On the caller's open transaction: ok (n = keys in [lo, hi)), or aborted.
  template <class Tx, class = containers::detail::if_transaction<Tx>>
  STM_HD op_status count(Tx& tx, std::uint32_t lo, std::uint32_t hi, std::uint32_t& n) const {
    STM_COMPOSED_OP(Tx, tx);
    n = 0;
    if (hi <= lo) return op_status::ok;
    walk_result r;
    return count_in(tx, lo, hi, n, r);
  }

  /// After a transaction that ran insert(tx, ..., slot) or remove(tx, ...,
  /// slot), whatever its outcome (node_slot says what it does).
  template <class Tx>
  STM_HD void settle(const Tx& tx, node_slot& slot) const {
    list::detail::settle(t_.pool, tx, slot);
  }

  /// The lock table its transactions use (build composed transactions on it).
  STM_HD lock_table_ref locks() const { return locks_; }
  STM_HD std::uint32_t levels() const { return t_.levels; }
  STM_HD tx_search search() const { return search_; }

 private:
  friend class tx_skiplist;

  /// What a walk saw at each level l < levels (read through the transaction):
  /// pred_word[l].next == succ[l], succ_word[l] the successor's word (0 for
  /// the tail).
  struct walk_result {
    std::uint32_t pred[max_levels];
    std::uint32_t succ[max_levels];
    node::word_t pred_word[max_levels];
    node::word_t succ_word[max_levels];
    std::uint32_t levels = 0;
    bool consistent = false;
    bool found = false;
  };

  template <class Tx>
  STM_HD op_status insert_in(Tx& tx, std::uint32_t key, node_slot& slot, walk_result& r) const {
    slot.attempt = 0;
    slot.unlinks = false;
    const std::uint32_t h = tower_height(key, t_.levels);
    walk(tx, key, h, r);
    if (!tx.active() || !r.consistent) return op_status::aborted;
    if (r.found) return op_status::exists;
    if (slot.node == node::head && (slot.node = t_.pool.allocate()) == node::head) return op_status::full;
    t_.height[slot.node] = h;  // private until the commit links the node
    for (std::uint32_t l = 0; l < h; ++l) {
      tx.write(t_.word(l, slot.node), node::make(key, r.succ[l]));
      tx.write(t_.word(l, r.pred[l]), node::with_next(r.pred_word[l], slot.node));
    }
    if (!tx.active()) return op_status::aborted;
    slot.attempt = tx.attempts() + 1;
    return op_status::ok;
  }

  template <class Tx>
  STM_HD op_status remove_in(Tx& tx, std::uint32_t key, node_slot& slot, walk_result& r) const {
    slot.attempt = 0;
    slot.unlinks = true;
    walk(tx, key, tower_height(key, t_.levels), r);
    if (!tx.active() || !r.consistent) return op_status::aborted;
    if (!r.found) return op_status::not_found;
    const std::uint32_t victim = r.succ[0];
    // Its tower: the levels where it follows the predecessor (in a
    // consistent snapshot exactly levels 0 .. height - 1, all searched).
    for (std::uint32_t l = 0; l < r.levels && r.succ[l] == victim; ++l) {
      tx.write(t_.word(l, victim), node::with_mark(r.succ_word[l]));
      tx.write(t_.word(l, r.pred[l]), node::with_next(r.pred_word[l], node::next(r.succ_word[l])));
    }
    if (!tx.active()) return op_status::aborted;
    slot.node = victim;
    slot.attempt = tx.attempts() + 1;
    return op_status::ok;
  }

  template <class Tx>
  STM_HD op_status contains_in(Tx& tx, std::uint32_t key, walk_result& r) const {
    walk(tx, key, 1, r);
    if (!tx.active() || !r.consistent) return op_status::aborted;
    return r.found ? op_status::ok : op_status::not_found;
  }

  /// Level 0 from lo's window on, every word through the transaction: the
  /// count depends on each key passed.
  template <class Tx>
  STM_HD op_status count_in(Tx& tx, std::uint32_t lo, std::uint32_t hi, std::uint32_t& n, walk_result& r) const {
    n = 0;
    walk(tx, lo, 1, r);
    if (!tx.active() || !r.consistent) return op_status::aborted;
    std::uint32_t cur = r.succ[0], last = 0;
    node::word_t cw = r.succ_word[0];
    while (cur != node::tail && node::key(cw) < hi) {
      if (n != 0 && node::key(cw) <= last) {  // a torn snapshot: the commit fails
        r.consistent = false;
        return op_status::aborted;
      }
      last = node::key(cw);
      ++n;
      cur = node::next(cw);
      if (cur == node::tail) break;
      if (cur < 2 || cur >= t_.pool.stride) {
        r.consistent = false;
        return op_status::aborted;
      }
      cw = tx.read(t_.word(0, cur));
      if (!tx.active()) return op_status::aborted;
      if (node::marked(cw) || node::flag(cw)) {
        r.consistent = false;
        return op_status::aborted;
      }
    }
    return op_status::ok;
  }

  /// The windows of key at levels 0 .. need - 1 (at every level for
  /// full_path), read through tx. Returns early when a read ends the attempt
  /// (!tx.active()) or the words read cannot belong to one committed state
  /// (r.consistent = false; see the header).
  template <class Tx>
  STM_HD void walk(Tx& tx, std::uint32_t key, std::uint32_t need, walk_result& r) const {
    r.consistent = false;
    r.found = false;
    r.succ[0] = node::tail;  // every search fills level 0; compilers cannot always see it
    r.succ_word[0] = 0;
    if (search_ == tx_search::window) {
      for (std::uint32_t t = 0; t < hint_tries; ++t) {
        const hinted h = walk_window(tx, key, need, r);
        if (h == hinted::torn) return;
        if (h == hinted::done) return finish(key, r);
      }
    }
    if (walk_full(tx, key, r)) finish(key, r);
  }

  STM_HD static void finish(std::uint32_t key, walk_result& r) {
    r.consistent = true;
    r.found = r.succ[0] != node::tail && node::key(r.succ_word[0]) == key;
  }

  enum class hinted : std::uint8_t { done, stale, torn };

  /// The window search (see the header): plain loads down to level need,
  /// then at each level below the hinted predecessor's word and the words
  /// from there to the successor through tx. stale: the hint at the top
  /// transactional level was no longer linked (search again); torn: the
  /// attempt ended or its reads contradict each other.
  template <class Tx>
  STM_HD hinted walk_window(Tx& tx, std::uint32_t key, std::uint32_t need, walk_result& r) const {
    std::uint32_t pred = node::head;
    for (std::uint32_t l = t_.levels; l-- > need;) pred = hint(l, pred, key);
    for (std::uint32_t l = need; l-- > 0;) {
      const std::uint32_t start = pred;
      std::uint32_t p = hint(l, start, key);
      node::word_t pw = tx.read(t_.word(l, p));
      if (!tx.active()) return hinted::torn;
      if (p != node::head && !linked_below(pw, key)) {
        // At the top transactional level start is a hint as well; below it,
        // start is linked at l + 1 in the snapshot, hence at l.
        if (l + 1 == need) return hinted::stale;
        if (p != start) {
          p = start;
          pw = tx.read(t_.word(l, p));
          if (!tx.active()) return hinted::torn;
        }
        if (p != node::head && !linked_below(pw, key)) return hinted::torn;
      }
      if (!scan_level(tx, l, key, p, pw, r)) return hinted::torn;
      pred = r.pred[l];
    }
    r.levels = need;
    return hinted::done;
  }

  /// The full-path search: every word from the head down through tx. False
  /// when the attempt ended or the reads contradict each other.
  template <class Tx>
  STM_HD bool walk_full(Tx& tx, std::uint32_t key, walk_result& r) const {
    std::uint32_t pred = node::head, pred_key = 0;
    for (std::uint32_t l = t_.levels; l-- > 0;) {
      const node::word_t pw = tx.read(t_.word(l, pred));
      if (!tx.active()) return false;
      if (pred != node::head && (node::marked(pw) || node::key(pw) != pred_key)) return false;
      if (!scan_level(tx, l, key, pred, pw, r)) return false;
      pred = r.pred[l];
      pred_key = node::key(r.pred_word[l]);
    }
    r.levels = t_.levels;
    return true;
  }

  /// Level l through tx from pred, whose word pw was read through tx (and
  /// found linked, unless pred is the head): advances while the successor's
  /// key is below key, and records the window in r. False when the attempt
  /// ended or the reads contradict a committed state.
  template <class Tx>
  STM_HD bool scan_level(Tx& tx, std::uint32_t l, std::uint32_t key, std::uint32_t pred, node::word_t pw,
                         walk_result& r) const {
    std::uint32_t pred_key = node::key(pw), cur;
    node::word_t cw = 0;
    for (;;) {
      cur = node::next(pw);
      if (cur == node::tail) break;
      if (cur < 2 || cur >= t_.pool.stride) return false;  // a word never linked (zero: next is the head)
      cw = tx.read(t_.word(l, cur));
      if (!tx.active()) return false;
      if (node::marked(cw) || node::flag(cw)) return false;
      const std::uint32_t k = node::key(cw);
      if (pred != node::head && k <= pred_key) return false;
      if (k >= key) break;
      pred = cur;
      pred_key = k;
      pw = cw;
    }
    r.pred[l] = pred;
    r.pred_word[l] = pw;
    r.succ[l] = cur;
    r.succ_word[l] = cw;
    return true;
  }

  /// A user node's word that shows it linked at its level with a key below key.
  STM_HD static bool linked_below(node::word_t w, std::uint32_t key) {
    return !node::marked(w) && !node::flag(w) && node::next(w) != node::head && node::key(w) < key;
  }

  /// The hint at level l: from `pred` (read with a plain load, as every word
  /// here), the last node in a row of strictly increasing keys below key
  /// that looks linked. Never fails; may be stale.
  STM_HD std::uint32_t hint(std::uint32_t l, std::uint32_t pred, std::uint32_t key) const {
    const detail::pool_ref level = t_.level(l);
    node::word_t pw = level.at(pred).load(memory_order_relaxed);
    std::uint32_t pred_key = node::key(pw);
    for (;;) {
      const std::uint32_t cur = node::next(pw);
      if (cur < 2 || cur >= t_.pool.stride) return pred;  // the tail, or a word never linked
      const node::word_t cw = level.at(cur).load(memory_order_relaxed);
      const std::uint32_t k = node::key(cw);
      if (node::marked(cw) || node::flag(cw) || k >= key || (pred != node::head && k <= pred_key)) return pred;
      pred = cur;
      pred_key = k;
      pw = cw;
    }
  }

  detail::towers_ref t_{};
  lock_table_ref locks_{};
  CM cm_{};
  tx_search search_ = tx_search::window;
};
static_assert(std::is_trivially_copyable_v<tx_skiplist_ref<>>);

/// Host owner: the towers and the lock table (its own, over all their
/// words, or a shared one).
class tx_skiplist {
 public:
  /// capacity: user nodes (>= 1); levels: 1 .. max_levels; words_per_lock: the
  /// lock coverage (a power of two; 1: one lock per word, the paper's hash 1);
  /// lock_spread: lock words per slot (stm/lock_table.hpp; 0: automatic).
  tx_skiplist(backend where, std::uint64_t capacity, std::uint32_t levels = default_levels,
              std::uint32_t words_per_lock = 1, std::uint32_t lock_spread = 0)
      : towers_(where, capacity, levels),
        locks_(lock_table(where, lock_count(towers_.ref(), words_per_lock), towers_.ref().pool.words,
                          sizeof(node::word_t) * std::uint64_t(words_per_lock),
                          lock_spread ? lock_spread : lock_table::auto_spread(lock_count(towers_.ref(), words_per_lock)))) {}
  /// A skiplist whose transactions use the caller's lock table `shared`, so
  /// that they compose with other containers and data of that table; the
  /// table must outlive the skiplist's use.
  tx_skiplist(backend where, std::uint64_t capacity, const lock_table& shared, std::uint32_t levels = default_levels)
      : towers_(where, capacity, levels), locks_(where, shared) {}

  /// The kernel handle, whose one-shot operations run under manager cm with
  /// descriptor Config and search as given.
  template <class CM = cm::prstm, class Config = tx_skiplist_config>
  tx_skiplist_ref<CM, Config> ref(CM cm = CM{}, tx_search search = tx_search::window) const {
    tx_skiplist_ref<CM, Config> r;
    r.t_ = towers_.ref();
    r.locks_ = locks_.ref();
    r.cm_ = cm;
    r.search_ = search;
    return r;
  }
  std::uint64_t capacity() const { return towers_.capacity(); }
  std::uint32_t levels() const { return towers_.levels(); }
  std::uint32_t num_locks() const { return locks_.table().size(); }
  std::uint64_t reclaim() { return towers_.reclaim(); }
  /// Quiescent point: empty the set and free every node (locks stay as they are: free).
  void clear() { towers_.clear(); }
  /// Quiescent point: the keys in order.
  std::vector<std::uint32_t> contents() const { return list::detail::checked_contents(*this, "tx_skiplist"); }
  std::string check(std::vector<std::uint32_t>* keys = nullptr) const { return towers_.check(keys); }
  const lock_table& locks() const { return locks_.table(); }
  /// After a launch every lock must be free again (tests).
  bool locks_free() const { return locks_.all_free(); }

 private:
  static std::uint64_t lock_count(const detail::towers_ref& t, std::uint32_t words_per_lock) {
    if (words_per_lock == 0 || (words_per_lock & (words_per_lock - 1)) != 0)
      throw usage_error("lock coverage must be a power of two of words, got " + std::to_string(words_per_lock));
    const std::uint64_t words = std::uint64_t(t.pool.stride) * t.levels;
    return (words + words_per_lock - 1) / words_per_lock;
  }
  detail::towers towers_;
  containers::detail::tx_locks locks_;
};

}  // namespace stm::skiplist
