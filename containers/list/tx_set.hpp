// containers/list/tx_set.hpp - stm::list::tx_set: a sorted set whose
// operations are PR-STM transactions (stm/tx.hpp), under any contention
// manager.
//
//   stm::list::tx_set set(stm::backend::gpu, capacity, {0, 9999, 2500});
//   auto s = set.ref();
//   // device / thread body, tid distinct per concurrent thread, < 2^19:
//   stm::list::op_status st = s.insert<stm::cm::prstm>(tid, key);   // ok | exists | pool_exhausted | capacity
//   s.remove<CM>(tid, key);  bool hit; s.contains<CM>(tid, key, hit);
//   set.reclaim();                                                   // host, between launches
//
// Layout: the same nodes and bucket sentinels as harris_set (one 64-bit word
// per node: key and next), read and written only through TX_READ/TX_WRITE; a
// remove unlinks the node by writing its predecessor, and the node is reused
// after reclaim() (the quiescent point), so an invisible reader never sees a
// node change identity under it.
//
// Guarantees: every operation is one transaction, so operations are
// linearizable (serializable transactions whose effects appear at commit).
// Progress is the contention manager's (PR-STM: the system makes progress).
//
// Read-set needs: a traversal reads one word per node it passes, so an
// operation needs (nodes between its bucket sentinel and its key) + 1 reads.
// With B buckets over N keys that is about N/B + 1; without buckets it is the
// list length. Config::max_reads bounds it: a longer walk ends with status
// capacity (the transaction aborts with abort_cause::capacity; nothing is
// changed), never silently. Inserts write 2 words (the new node and its
// predecessor), removes 2 (the victim, marked, and its predecessor).
#pragma once

#include <cstdint>
#include <type_traits>

#include "cmp/prstm.hpp"
#include "containers/list/harris_set.hpp"
#include "stm/lock_table.hpp"
#include "stm/tx_macros.hpp"

namespace stm::list {

/// Default descriptor of tx_set operations: 64 reads (walks of up to 63
/// nodes), 2 writes, opacity on (the walk never follows an inconsistent next).
using tx_set_config = tx_config<64, 2, true>;

class tx_set_ref {
 public:
  template <class CM = cm::prstm, class Config = tx_set_config>
  STM_HD op_status insert(std::uint32_t tid, std::uint32_t key, tx_counters* counters = nullptr) const {
    const std::uint32_t fresh = set_.pool_.allocate();
    if (fresh == node::head) return op_status::pool_exhausted;
    node::word_t* w = set_.pool_.words;
    const std::uint64_t target = harris_set_ref::order(key, false);
    const std::uint32_t start = set_.bucket_start(key);
    transaction<CM, Config> tx(locks_, tid);
    TX_BEGIN(tx) {
      std::uint32_t prev = start;
      node::word_t pw = TX_READ(tx, &w[start]);
      std::uint32_t cur = node::next(pw);
      node::word_t cw = 0;
      while (cur != node::tail) {
        cw = TX_READ(tx, &w[cur]);
        if (harris_set_ref::order_of(cw) >= target) break;
        prev = cur;
        pw = cw;
        cur = node::next(cw);
      }
      if (cur != node::tail && !node::flag(cw) && node::key(cw) == key) TX_SEMANTIC_ABORT(tx);
      TX_WRITE(tx, &w[fresh], node::make(key, cur));
      TX_WRITE(tx, &w[prev], node::with_next(pw, fresh));
    }
    TX_END(tx);
    if (counters) add(*counters, tx.counters());
    if (tx.committed()) return op_status::ok;
    set_.pool_.retire(fresh);  // never published
    return tx.status() == tx_status::semantic ? op_status::exists : op_status::capacity;
  }

  template <class CM = cm::prstm, class Config = tx_set_config>
  STM_HD op_status remove(std::uint32_t tid, std::uint32_t key, tx_counters* counters = nullptr) const {
    node::word_t* w = set_.pool_.words;
    const std::uint64_t target = harris_set_ref::order(key, false);
    const std::uint32_t start = set_.bucket_start(key);
    std::uint32_t victim = node::head;
    transaction<CM, Config> tx(locks_, tid);
    TX_BEGIN(tx) {
      std::uint32_t prev = start;
      node::word_t pw = TX_READ(tx, &w[start]);
      std::uint32_t cur = node::next(pw);
      node::word_t cw = 0;
      while (cur != node::tail) {
        cw = TX_READ(tx, &w[cur]);
        if (harris_set_ref::order_of(cw) >= target) break;
        prev = cur;
        pw = cw;
        cur = node::next(cw);
      }
      if (cur == node::tail || node::flag(cw) || node::key(cw) != key) TX_SEMANTIC_ABORT(tx);
      victim = cur;
      // Mark the victim as well as unlinking it: every pair of conflicting
      // updates then writes a common word (an insert or remove next to the
      // victim writes the victim or its predecessor), so they are ordered by
      // write-write conflicts on the pre-locks, not only by read validation.
      TX_WRITE(tx, &w[cur], node::with_mark(cw));
      TX_WRITE(tx, &w[prev], node::with_next(pw, node::next(cw)));
    }
    TX_END(tx);
    if (counters) add(*counters, tx.counters());
    if (tx.committed()) {
      set_.pool_.retire(victim);  // unlinked by our commit; reused after reclaim()
      return op_status::ok;
    }
    return tx.status() == tx_status::semantic ? op_status::not_found : op_status::capacity;
  }

  /// found = whether key is present. Returns ok, or capacity when the walk
  /// overflowed the read set (found is then meaningless).
  template <class CM = cm::prstm, class Config = tx_set_config>
  STM_HD op_status contains(std::uint32_t tid, std::uint32_t key, bool& found, tx_counters* counters = nullptr) const {
    node::word_t* w = set_.pool_.words;
    const std::uint64_t target = harris_set_ref::order(key, false);
    const std::uint32_t start = set_.bucket_start(key);
    transaction<CM, Config> tx(locks_, tid);
    TX_BEGIN(tx) {
      found = false;
      std::uint32_t cur = node::next(TX_READ(tx, &w[start]));
      while (cur != node::tail) {
        const node::word_t cw = TX_READ(tx, &w[cur]);
        if (harris_set_ref::order_of(cw) >= target) {
          found = !node::flag(cw) && node::key(cw) == key;
          break;
        }
        cur = node::next(cw);
      }
    }
    TX_END(tx);
    if (counters) add(*counters, tx.counters());
    return tx.committed() ? op_status::ok : op_status::capacity;
  }

 private:
  friend class tx_set;
  STM_HD static void add(tx_counters& into, const tx_counters& c) { into += c; }
  harris_set_ref set_{};
  lock_table_ref locks_{};
};
static_assert(std::is_trivially_copyable_v<tx_set_ref>);

/// Host owner: the node pool (with its bucket sentinels) and one lock per node.
class tx_set {
 public:
  tx_set(backend where, std::uint64_t capacity, bucket_hint hint = {})
      : set_(where, capacity, hint),
        locks_(where, capacity + hint.buckets + 1, set_.ref().pool_.words, sizeof(node::word_t)) {
    ref_.set_ = set_.ref();
    ref_.locks_ = locks_.ref();
  }
  tx_set_ref ref() const { return ref_; }
  std::uint64_t reclaim() { return set_.reclaim(); }
  /// Quiescent point: replace the contents by `keys` (harris_set::assign).
  void assign(std::vector<std::uint32_t> keys) { set_.assign(std::move(keys)); }
  std::vector<std::uint32_t> to_vector() const { return set_.to_vector(); }
  std::string check(std::vector<std::uint32_t>* keys = nullptr) const { return set_.check(keys); }
  /// After a launch every lock must be free again.
  bool locks_free() const {
    for (auto word : locks_.snapshot())
      if (!lock_word::is_free(word)) return false;
    return true;
  }

 private:
  harris_set set_;
  lock_table locks_;
  tx_set_ref ref_{};
};

}  // namespace stm::list
