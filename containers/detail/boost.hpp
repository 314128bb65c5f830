// SPDX-License-Identifier: Apache-2.0
// containers/detail/boost.hpp - optimistic transactional boosting of a native
// lock-free set (tx_set over harris_set, tx_skiplist over lockfree_skiplist):
// abstract key locks that are ordinary STM words, the operations' protocol on
// a transaction, and the commit's native apply (docs/container-boosting.md
// has the argument; this header the rules).
//
// Key locks. A boosted set owns an array of 64-bit words, the key locks;
// key k maps to word index_of(k) (key_map: keys lo, lo+1, ... each their own
// word, then aliasing modulo the count, as the STM lock table maps addresses).
// The words are read and written only through the transaction (TX_READ /
// TX_WRITE, so the one lock table covers them and the STM's validation and
// opacity apply to them), except for the settle store below. A word holds
//   clean:   bit 0 clear; bits 1..63 the number of effects applied under it
//            (unique: a clean value never comes back);
//   pending: bit 0 set; a committed transaction's effect on `key` is not yet
//            applied to the native structure (fields: key_lock:: below).
// An operation on key k:
//   1. v = tx.read(word) (the semantic read set: one word).
//   2. v pending by another transaction: that one has committed and is
//      applying; wait until the word moves, then lock_conflict() (the attempt
//      is retried). v pending by this transaction (read-own-write): the
//      answer is the view the pending value carries (no native look).
//   3. v clean: the answer is the native structure's (a plain, linearizable
//      lookup), accepted only if the word still holds v afterwards (a plain
//      acquire load): no effect on k was applied in between.
//   4. An insert or remove that changes the set writes a pending value
//      (tx.write), its new view and what to apply; nothing else is written.
// Commit is the STM's (the key lock's version bump serializes the
// transactions on k). After it, settle() (the caller's, as for every
// composed operation) applies the effect to the native structure with its
// own lock-free algorithm and stores the next clean value: only then can
// another transaction use k again (lookups without a transaction answer
// with the pending view meanwhile). An aborted attempt wrote nothing, so
// there is nothing to undo.

//
// A transaction's second operation on a key under a word that this
// transaction already made pending for a different key (two keys aliasing
// one word: only outside the key map's direct range, or with keys_per_lock
// above 1) cannot tell the two apart: it returns op_status::capacity and
// changes nothing.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "containers/list/detail/node_pool.hpp"
#include "containers/status.hpp"
#include "stm/backoff.hpp"
#include "stm/buffer.hpp"
#include "stm/error.hpp"
#include "stm/lock_table.hpp"
#include "stm/lock_word.hpp"
#include "stm/platform.hpp"
#include "stm/tx.hpp"
#include "stm/tx_macros.hpp"

namespace stm {

/// How a boosted set (tx_set, tx_skiplist) runs its one-shot insert and
/// remove (insert(tid, key), remove(tid, key), erase(tid, key)); composed
/// operations and the one-shot put are always transactions
/// (docs/container-boosting.md, "One-shot updates"). Chosen per set on the
/// host (set_one_shot), copied into every ref.
///  direct        (default) the answer of a lookup when the update changes
///                nothing (exists, not found: no transaction, no node); a
///                change takes the key lock's STM lock by one CAS, writes the
///                pending value, releases, and applies at once from the
///                search position the lookup found
///  direct_search the same, but the apply searches again (A/B of the carried
///                position)
///  precheck      the lookup's answer when nothing changes, else the
///                transaction below (A/B of the no-op answers alone)
///  transaction   a transaction of one read and at most one write, settled
///                after it (the protocol before the direct path)
enum class one_shot_mode : std::uint32_t { direct = 0, direct_search = 1, precheck = 2, transaction = 3 };
inline constexpr one_shot_mode all_one_shot_modes[] = {one_shot_mode::direct, one_shot_mode::direct_search,
                                                       one_shot_mode::precheck, one_shot_mode::transaction};

inline const char* to_string(one_shot_mode m) {
  switch (m) {
    case one_shot_mode::direct: return "direct";
    case one_shot_mode::direct_search: return "direct-search";
    case one_shot_mode::precheck: return "precheck";
    case one_shot_mode::transaction: return "tx";
  }
  return "unknown";
}
/// The mode named s (to_string's names); usage_error otherwise.
inline one_shot_mode one_shot_mode_from(const std::string& s) {
  for (one_shot_mode m : all_one_shot_modes)
    if (s == to_string(m)) return m;
  throw usage_error("unknown one-shot mode '" + s + "' (known: direct, direct-search, precheck, tx)");
}

// STM_BOOST_ONE_SHOT=n at compile time (n a one_shot_mode's value: 0 direct,
// 1 direct-search, 2 precheck, 3 tx) fixes the mode of every boosted set of
// the build: the other modes' code leaves the kernels, whose registers are
// then those of the one path (an A/B of stm_bench builds at the kernels'
// own register counts; a set_one_shot to another mode is a usage_error).
// Without it the mode is the sets' run-time choice, and every kernel holds
// every path.
#ifdef STM_BOOST_ONE_SHOT
static_assert(STM_BOOST_ONE_SHOT >= 0 && STM_BOOST_ONE_SHOT <= 3, "STM_BOOST_ONE_SHOT is 0 (direct), 1 (direct-search), 2 (precheck) or 3 (tx)");
inline constexpr bool one_shot_mode_fixed = true;
inline constexpr one_shot_mode default_one_shot_mode = static_cast<one_shot_mode>(STM_BOOST_ONE_SHOT);
#else
inline constexpr bool one_shot_mode_fixed = false;
inline constexpr one_shot_mode default_one_shot_mode = one_shot_mode::direct;
#endif
/// usage_error when this build fixes another mode than m (STM_BOOST_ONE_SHOT).
inline void check_one_shot_mode(one_shot_mode m) {
  if (one_shot_mode_fixed && m != default_one_shot_mode)
    throw usage_error(std::string("this build fixes the boosted sets' one-shot mode to ") +
                      to_string(default_one_shot_mode) + " (STM_BOOST_ONE_SHOT); asked for " + to_string(m));
}

}  // namespace stm

namespace stm::containers::detail {

namespace key_lock {
using word_t = std::uint64_t;
/// What a committed transaction leaves for settle() to do on the native set.
/// apply_assign (maps only): the key stays present, its value becomes the
/// staged one.
enum apply_op : std::uint32_t { apply_nothing = 0, apply_insert = 1, apply_remove = 2, apply_assign = 3 };

STM_HD inline constexpr bool pending(word_t v) { return (v & 1u) != 0; }
// pending: bit 0 set, bit 1 the view (present), bits 2-3 the apply_op, bits
// 4-22 the owner's thread id (19 bits, lock_word::owner_bits), bit 23 staged
// (maps: the key's value is the key lock's value word, below; a present view
// without it has value 0, a new key's), bits 32-63 the key.
STM_HD inline constexpr word_t make_pending(std::uint32_t key, std::uint32_t tid, bool present, apply_op op,
                                           bool staged = false) {
  return (word_t(key) << 32) | (word_t(staged) << 23) | (word_t(tid & (lock_word::max_threads - 1)) << 4) |
         (word_t(op) << 2) | (word_t(present) << 1) | 1u;
}
STM_HD inline constexpr std::uint32_t owner(word_t v) { return static_cast<std::uint32_t>(v >> 4) & (lock_word::max_threads - 1); }
STM_HD inline constexpr std::uint32_t key(word_t v) { return static_cast<std::uint32_t>(v >> 32); }
STM_HD inline constexpr bool present(word_t v) { return (v >> 1) & 1u; }
STM_HD inline constexpr apply_op op(word_t v) { return static_cast<apply_op>((v >> 2) & 3u); }
STM_HD inline constexpr bool staged(word_t v) { return (v >> 23) & 1u; }
/// The native structure's presence of the key under this transaction's own
/// pending value v (what settle starts from).
STM_HD inline constexpr bool native_present(word_t v) {
  return op(v) == apply_nothing ? present(v) : op(v) != apply_insert;
}
}  // namespace key_lock

/// How keys map onto key-lock words: keys lo .. lo + count x keys_per_lock - 1
/// each to their own word (keys_per_lock 1) or in runs of keys_per_lock;
/// every other key aliases onto them (modulo count). Two keys on one word
/// conflict (false conflicts only); two keys on two words never do.
struct key_map {
  std::uint32_t lo = 0;
  std::uint32_t shift = 0;  // log2(keys_per_lock)
  std::uint32_t count = 1;
  STM_HD std::uint32_t index_of(std::uint32_t key) const {
    const std::uint32_t q = (key - lo) >> shift;  // unsigned: keys below lo wrap around
    return q < count ? q : q % count;
  }
};

/// Device/thread view of the key locks (trivially copyable).
struct key_locks_ref {
  key_lock::word_t* words = nullptr;  // the STM words: map.count key locks, the guard (below), then the value words (maps)
  std::uint64_t* applied = nullptr;   // per word: effects applied so far (only settle() writes it)
  key_map map{};
  STM_HD key_lock::word_t* word(std::uint32_t i) const { return words + i; }
  /// A word no transaction writes (always clean): reading it through a
  /// transaction never comes from the transaction's own writes, so it makes
  /// the STM check the earlier reads as a read does (count_in()).
  STM_HD key_lock::word_t* guard() const { return words + map.count; }
  /// Maps: key lock i's value word, an STM word like the key lock (read and
  /// written through the transaction): the staged value of a pending put,
  /// meaningful while the key lock is pending with staged set.
  STM_HD key_lock::word_t* value_word(std::uint32_t i) const { return words + map.count + 1 + i; }
  STM_HD atomic_ref<key_lock::word_t> at(std::uint32_t i) const { return atomic_ref<key_lock::word_t>(words[i]); }
};
static_assert(std::is_trivially_copyable_v<key_locks_ref>);

/// Host owner of the key locks: `count` words and the guard, all clean.
class key_locks {
 public:
  /// lo: first key of the direct range; count >= 1 words; keys_per_lock a
  /// power of two (usage_error otherwise).
  /// values: a value word per key lock after the guard (maps).
  key_locks(backend where, std::uint32_t lo, std::uint64_t count, std::uint32_t keys_per_lock, bool values = false)
      : words_(where, (checked(count, keys_per_lock) + 1) * (values ? 2 : 1) - (values ? 1 : 0)),
        applied_(where, static_cast<std::size_t>(count)) {
    ref_.words = words_.data();
    ref_.applied = applied_.data();
    ref_.map.lo = lo;
    ref_.map.count = static_cast<std::uint32_t>(count);
    while ((1u << ref_.map.shift) < keys_per_lock) ++ref_.map.shift;
    reset();
  }
  key_locks_ref ref() const { return ref_; }
  std::uint32_t size() const { return ref_.map.count; }
  /// The STM words: the key locks and the guard (what an own lock table covers).
  std::uint64_t words() const { return words_.size(); }
  std::uint32_t keys_per_lock() const { return 1u << ref_.map.shift; }
  /// Quiescent point: "" when no word is pending (every committed effect was
  /// applied: each composed operation was settled), else the first one.
  std::string check() const {
    const auto w = words_.to_vector();
    for (std::size_t i = 0; i < ref_.map.count; ++i)
      if (key_lock::pending(w[i]))
        return "key lock " + std::to_string(i) + " still pending (key " + std::to_string(key_lock::key(w[i])) +
               "): a committed operation was never settled";
    return "";
  }

 private:
  /// Every word clean, every count zero (construction only: afterwards a
  /// clean value must never come back).
  void reset() {
    words_.upload(std::vector<key_lock::word_t>(words_.size(), 0));
    applied_.upload(std::vector<std::uint64_t>(ref_.map.count, 0));
  }
  static std::size_t checked(std::uint64_t count, std::uint32_t keys_per_lock) {
    if (count == 0 || count > (1ull << 31)) throw usage_error("a boosted set has 1 to 2^31 key locks, asked for " + std::to_string(count));
    if (keys_per_lock == 0 || (keys_per_lock & (keys_per_lock - 1)) != 0)
      throw usage_error("keys per lock must be a power of two, got " + std::to_string(keys_per_lock));
    return static_cast<std::size_t>(count);
  }
  buffer<key_lock::word_t> words_;
  buffer<std::uint64_t> applied_;
  key_locks_ref ref_{};
};

/// What an operation's look at its key found (observe()).
struct observed {
  std::uint32_t lock = 0;   // the key lock's index
  key_lock::word_t value = 0;
  bool own = false;         // the word is pending by this transaction
  bool present = false;     // the key is in the set, as this transaction sees it
};

/// Wait (bounded) until word i no longer holds v: the pending owner is
/// applying its effect, which needs nobody else. The caller then aborts
/// its attempt; the retry reads the word again.
STM_HD inline void wait_moved(const key_locks_ref& kl, std::uint32_t i, key_lock::word_t v) {
  for (std::uint32_t polls = 0; polls < 64 && kl.at(i).load(memory_order_relaxed) == v; ++polls) platform::backoff_ns(64);
}

/// Steps 1-3 of the header on tx: ok (o filled), aborted (the attempt ended:
/// leave the body), or capacity (an aliasing key of this transaction's own
/// pending word). Present(key) is the native lookup.
template <class Tx, class Present>
STM_HD op_status observe(Tx& tx, const key_locks_ref& kl, std::uint32_t key, Present&& native_present, observed& o) {
  o.lock = kl.map.index_of(key);
  const key_lock::word_t v = tx.read(kl.word(o.lock));
  if (!tx.active()) return op_status::aborted;
  o.value = v;
  if (key_lock::pending(v)) {
    if (key_lock::owner(v) != tx.thread_id()) {
      wait_moved(kl, o.lock, v);
      tx.lock_conflict();
      return op_status::aborted;
    }
    if (key_lock::key(v) != key) return op_status::capacity;
    o.own = true;
    o.present = key_lock::present(v);
    return op_status::ok;
  }
  o.own = false;
  o.present = native_present(key);
  // The native lookup's loads are acquire loads: this load comes after them.
  // The word still at v: no effect on any key of the word was applied while
  // the lookup ran (an apply comes after its pending store, which would show
  // here: the apply's release CAS, read by the lookup, carries it).
  if (kl.at(o.lock).load(memory_order_acquire) != v) {
    tx.lock_conflict();
    return op_status::aborted;
  }
  return op_status::ok;
}

/// Step 4: the transaction's update of key from what observe() found: the
/// key becomes `present`. Returns false when the attempt ended.
/// Maps: stage = the key's value becomes `value` (written to the key lock's
/// value word through tx; settle inserts the key with it or assigns it).
template <class Tx>
STM_HD bool make_pending(Tx& tx, const key_locks_ref& kl, std::uint32_t key, const observed& o, bool now_present,
                         bool stage = false, std::uint32_t value = 0) {
  using namespace key_lock;
  // What settle must change in the native set: the native state is the view
  // unless this transaction's own pending value already changed it.
  const bool native = o.own ? native_present(o.value) : o.present;
  const apply_op a = !now_present ? (native ? apply_remove : apply_nothing)
                     : !native    ? apply_insert
                     : stage      ? apply_assign
                                  : apply_nothing;
  if (stage && now_present) tx.write(kl.value_word(o.lock), key_lock::word_t(value));
  tx.write(kl.word(o.lock), make_pending(key, tx.thread_id(), now_present, a, stage && now_present));
  return tx.active();
}

/// Maps: the value of key under this transaction's own pending value v with
/// a present view (the staged value, read back from tx's write set, or 0).
template <class Tx>
STM_HD std::uint32_t own_value(Tx& tx, const key_locks_ref& kl, std::uint32_t i, key_lock::word_t v) {
  return key_lock::staged(v) ? static_cast<std::uint32_t>(tx.read(kl.value_word(i))) : 0u;
}

/// The STM lock word of key lock i under `locks` is a final lock: its
/// committer is writing back (a bounded wait: it waits for nobody).
STM_HD inline bool writing_back(const lock_table_ref& locks, const key_locks_ref& kl, std::uint32_t i) {
  return lock_word::is_final(locks.word(locks.index_of(kl.word(i))).load(memory_order_acquire));
}

/// Address p's STM lock word under `locks` is a final lock (its committer is
/// writing back).
STM_HD inline bool final_locked(const lock_table_ref& locks, const void* p) {
  return lock_word::is_final(locks.word(locks.index_of(p)).load(memory_order_acquire));
}

/// One-shot lookup without a transaction. The key lock's STM lock word is
/// not a final lock (else wait: a commit is writing back), then: a pending
/// word answers with its view (its transaction has committed: the lookup
/// takes effect after it), a clean one with the native answer, accepted if
/// the word still holds the same value afterwards. Linearizable at the load
/// of the pending value or at the native lookup (a word pending for another
/// key that aliases this one is as good as clean for this key). Why the STM lock word: a
/// composed transaction writes back its key locks one by one, all under final
/// locks taken before the first; a thread that saw one of its pending values
/// and then looks at another of its keys sees that key's final lock or a
/// later state (the committer's fence (A) before its write-back), never the
/// value before the commit. It never waits for a pending word's owner.
template <class Present>
STM_HD bool lookup(const lock_table_ref& locks, const key_locks_ref& kl, std::uint32_t key, Present&& native_present) {
  const std::uint32_t i = kl.map.index_of(key);
  for (;;) {
    if (writing_back(locks, kl, i)) {
      platform::backoff_ns(64);
      continue;
    }
    const key_lock::word_t v = kl.at(i).load(memory_order_acquire);
    if (key_lock::pending(v) && key_lock::key(v) == key) return key_lock::present(v);
    // Clean, or pending for another key on the same word (whose change leaves
    // this key's native state as it is; its applied count tells an apply and a
    // new commit of the same pending value apart, which a clean value cannot
    // repeat).
    const atomic_ref<std::uint64_t> applied(kl.applied[i]);
    const std::uint64_t a = key_lock::pending(v) ? applied.load(memory_order_relaxed) : 0;
    const bool present = native_present(key);
    if (kl.at(i).load(memory_order_acquire) == v && (!key_lock::pending(v) || applied.load(memory_order_relaxed) == a))
      return present;
  }
}

/// Maps: lookup() of key's presence and value (value set when present). A
/// pending word for key with a staged value: the value word, once its STM
/// lock is not a final lock (the commit that wrote the pending value wrote
/// it too, under final locks taken before either write-back: having seen the
/// pending value, this thread sees that lock final or released after the
/// write-back), accepted if the key lock still holds the pending value
/// afterwards. native_get(key, value) is the native lookup.
template <class Get>
STM_HD bool lookup_value(const lock_table_ref& locks, const key_locks_ref& kl, std::uint32_t key, Get&& native_get,
                         std::uint32_t& value) {
  const std::uint32_t i = kl.map.index_of(key);
  for (;;) {
    if (writing_back(locks, kl, i)) {
      platform::backoff_ns(64);
      continue;
    }
    const key_lock::word_t v = kl.at(i).load(memory_order_acquire);
    if (key_lock::pending(v) && key_lock::key(v) == key) {
      if (!key_lock::present(v)) return false;
      if (!key_lock::staged(v)) {
        value = 0;
        return true;
      }
      if (final_locked(locks, kl.value_word(i))) {
        platform::backoff_ns(64);
        continue;
      }
      const auto x = atomic_ref<key_lock::word_t>(*kl.value_word(i)).load(memory_order_acquire);
      if (kl.at(i).load(memory_order_acquire) != v) continue;
      value = static_cast<std::uint32_t>(x);
      return true;
    }
    // As lookup(): clean, or pending for another key of the word.
    const atomic_ref<std::uint64_t> applied(kl.applied[i]);
    const std::uint64_t a = key_lock::pending(v) ? applied.load(memory_order_relaxed) : 0;
    std::uint32_t x = 0;
    const bool present = native_get(key, x);
    if (kl.at(i).load(memory_order_acquire) == v && (!key_lock::pending(v) || applied.load(memory_order_relaxed) == a)) {
      if (present) value = x;
      return present;
    }
  }
}

/// The end of an apply: word i (pending by the caller, whose change the
/// native set now has) gets the next clean value. Only the owner of the
/// pending word writes applied[i]; the next owner read the clean value stored
/// here (release) before it could commit.
STM_HD inline void store_applied(const key_locks_ref& kl, std::uint32_t i) {
  const atomic_ref<std::uint64_t> count(kl.applied[i]);
  const std::uint64_t n = count.load(memory_order_relaxed) + 1;
  count.store(n, memory_order_relaxed);
  kl.at(i).store(n << 1, memory_order_release);  // pairs with the lookups' acquire loads
}

/// After the transaction, once per composed update (settle()): when this
/// transaction's commit left word i pending, apply the effect to the native
/// set (insert(key) / remove(key): each must succeed, as nobody else can
/// change the key meanwhile) and store the next clean value. Several
/// operations of one transaction on one key: the first settle applies their
/// net effect; later ones find the word clean or another owner's, and do
/// nothing. An insert's settle passes can_insert; a remove's settle leaves a
/// pending insert to the insert's own settle (which holds the node).
/// native_insert and native_assign take (key, the pending value) (maps: its
/// staged bit says where the value is). Returns the applied op.
template <class Insert, class Remove, class Assign>
STM_HD key_lock::apply_op settle_key(const key_locks_ref& kl, std::uint32_t i, std::uint32_t key, std::uint32_t tid,
                                     bool can_insert, Insert&& native_insert, Remove&& native_remove,
                                     Assign&& native_assign) {
  using namespace key_lock;
  const word_t v = kl.at(i).load(memory_order_acquire);
  if (!pending(v) || owner(v) != (tid & (lock_word::max_threads - 1)) || key_lock::key(v) != key) return apply_nothing;
  const apply_op a = op(v);
  if (a == apply_insert) {
    if (!can_insert) return apply_nothing;
    native_insert(key, v);
  } else if (a == apply_remove) {
    native_remove(key);
  } else if (a == apply_assign) {
    native_assign(key, v);
  }
  store_applied(kl, i);
  return a;
}

/// f(i) for the index of every key lock that a key k with lo <= k < hi maps
/// to (each once; all of them when the range wraps around the map or covers
/// every word).
template <class F>
STM_HD void each_lock_of_range(const key_map& m, std::uint32_t lo, std::uint32_t hi, F&& f) {
  if (hi <= lo) return;
  const bool crosses = lo < m.lo && hi > m.lo;  // keys below m.lo wrap around to the top of the map
  const std::uint32_t qa = (lo - m.lo) >> m.shift, qb = (hi - 1 - m.lo) >> m.shift;
  if (crosses || std::uint64_t(qb) - qa + 1 >= m.count) {
    for (std::uint32_t i = 0; i < m.count; ++i) f(i);
    return;
  }
  for (std::uint32_t q = qa;; ++q) {
    f(q < m.count ? q : q % m.count);
    if (q == qb) break;
  }
}

/// One-shot count of the keys in [lo, hi) without a transaction: the native
/// walk for_each(lo, hi, visit) between two passes over the range's key
/// locks that find no final STM lock (a commit writing back: wait) and no
/// word moved: the same sum of the clean words (a clean value only grows)
/// and the same pending words with the same values. A pending key is counted
/// by its view, not by the walk (its native state is unknown while its owner
/// settles). Linearizable at the walk: no commit and no apply in the range
/// during it, and the pending changes seen committed before it. It never
/// waits for a pending word's owner, unless more than MaxPending words of the
/// range are pending at once.
template <std::uint32_t MaxPending = 8, class ForEach>
STM_HD std::uint32_t count_lookup(const lock_table_ref& locks, const key_locks_ref& kl, std::uint32_t lo,
                                  std::uint32_t hi, ForEach&& for_each) {
  struct pending_word {
    std::uint32_t index;
    key_lock::word_t value;
    std::uint64_t applied;  // read after the value: an apply and a new commit of the same value (ABA) moved it
  };
  pending_word seen[MaxPending] = {};
  std::uint32_t n_seen = 0;
  // first: record the pending words; else: match them. False when a commit
  // is writing back, too many are pending, or (not first) a word moved.
  auto pass = [&](bool first, std::uint64_t& clean_sum) {
    bool ok = true;
    std::uint32_t matched = 0;
    clean_sum = 0;
    each_lock_of_range(kl.map, lo, hi, [&](std::uint32_t i) {
      if (ok && writing_back(locks, kl, i)) ok = false;
      if (!ok) return;
      const key_lock::word_t v = kl.at(i).load(memory_order_acquire);
      if (!key_lock::pending(v)) {
        clean_sum += v;
        return;
      }
      const std::uint64_t a = atomic_ref<std::uint64_t>(kl.applied[i]).load(memory_order_relaxed);
      if (first) {
        if (n_seen == MaxPending) ok = false;
        else seen[n_seen++] = pending_word{i, v, a};
      } else {
        bool same = false;
        for (std::uint32_t j = 0; j < n_seen; ++j) same |= seen[j].index == i && seen[j].value == v && seen[j].applied == a;
        if (same) ++matched;
        else ok = false;
      }
    });
    return ok && (first || matched == n_seen);
  };
  for (;;) {
    std::uint64_t s1 = 0, s2 = 0;
    n_seen = 0;
    if (!pass(true, s1)) {
      platform::backoff_ns(64);
      continue;
    }
    std::uint32_t n = 0;
    for_each(lo, hi, [&](std::uint32_t k) {
      for (std::uint32_t j = 0; j < n_seen; ++j)
        if (key_lock::key(seen[j].value) == k) return;  // counted by its view below
      ++n;
    });
    for (std::uint32_t j = 0; j < n_seen; ++j) {
      const std::uint32_t k = key_lock::key(seen[j].value);
      n += k >= lo && k < hi && key_lock::present(seen[j].value);
    }
    if (pass(false, s2) && s2 == s1) return n;
  }
}

/// The key locks of [lo, hi), each read through tx, for the range operations
/// (count_in, for_each_in): another transaction's pending lock aborts the
/// attempt (after waiting for it to move: lock_conflict); own(i, word) is
/// called for each of this transaction's own pending keys inside the range
/// and returns false when it has no room for one more (capacity). ok,
/// aborted, or capacity.
template <class Tx, class Own>
STM_HD op_status read_range_locks(Tx& tx, const key_locks_ref& kl, std::uint32_t lo, std::uint32_t hi, Own&& own) {
  op_status st = op_status::ok;
  each_lock_of_range(kl.map, lo, hi, [&](std::uint32_t i) {
    if (st != op_status::ok) return;
    const key_lock::word_t v = tx.read(kl.word(i));
    if (!tx.active()) {
      st = op_status::aborted;
    } else if (key_lock::pending(v)) {
      if (key_lock::owner(v) != tx.thread_id()) {
        wait_moved(kl, i, v);
        tx.lock_conflict();
        st = op_status::aborted;
      } else if (key_lock::key(v) >= lo && key_lock::key(v) < hi && !own(i, v)) {
        st = op_status::capacity;
      }
    }
  });
  return st;
}

/// Composed count of the keys in [lo, hi) on tx: every key lock of the
/// range read through tx (another's pending one: wait, lock_conflict), the
/// native walk, with this transaction's own pending keys counted by their
/// view instead (at most MaxOwn of them in the range, else capacity), then
/// one read of the guard, which makes the STM check every earlier read: an
/// effect the walk saw was committed after a lock read, whose check then
/// fails (docs/container-boosting.md). ok (n set), aborted, or capacity.
template <std::uint32_t MaxOwn = 8, class Tx, class ForEach>
STM_HD op_status count_in(Tx& tx, const key_locks_ref& kl, std::uint32_t lo, std::uint32_t hi, ForEach&& for_each,
                          std::uint32_t& n) {
  n = 0;
  if (hi <= lo) return op_status::ok;
  std::uint32_t own_key[MaxOwn] = {};
  bool own_present[MaxOwn] = {};
  std::uint32_t n_own = 0;
  const op_status st = read_range_locks(tx, kl, lo, hi, [&](std::uint32_t, key_lock::word_t v) {
    if (n_own == MaxOwn) return false;
    own_key[n_own] = key_lock::key(v);
    own_present[n_own++] = key_lock::present(v);
    return true;
  });
  if (st != op_status::ok) return st;
  std::uint32_t c = 0;
  for_each(lo, hi, [&](std::uint32_t k) {
    for (std::uint32_t j = 0; j < n_own; ++j)
      if (own_key[j] == k) return;  // counted by its view below
    ++c;
  });
  for (std::uint32_t j = 0; j < n_own; ++j) c += own_present[j];
  (void)tx.read(kl.guard());
  if (!tx.active()) return op_status::aborted;
  n = c;
  return op_status::ok;
}

/// Maps: composed for_each over [lo, hi) on tx: f(key, value) for every key
/// of the range in tx's view, in increasing key order. The key locks of the
/// range are read through tx as in count_in() (another's pending one: wait,
/// lock_conflict; this transaction's own pending keys, at most MaxOwn of them,
/// are delivered by their view), the native walk for_each_value(lo, hi,
/// visit(key, value)) fills batches of Batch entries, and before a batch
/// reaches f the guard is read through tx once more, which checks every
/// earlier read (count_in(); a repeated read of the guard is a new read and
/// checks again): f only ever sees entries of one snapshot, and an attempt
/// that fails a check ends before f sees the batch (f must, like the body,
/// be retried from scratch by the caller's TX_BEGIN). ok, aborted, or
/// capacity.
template <std::uint32_t MaxOwn = 8, std::uint32_t Batch = 16, class Tx, class ForEachValue, class F>
STM_HD op_status for_each_in(Tx& tx, const key_locks_ref& kl, std::uint32_t lo, std::uint32_t hi,
                             ForEachValue&& for_each_value, F&& f) {
  if (hi <= lo) return op_status::ok;
  std::uint32_t own_key[MaxOwn] = {};
  key_lock::word_t own_word[MaxOwn] = {};
  std::uint32_t own_lock[MaxOwn] = {};
  std::uint32_t n_own = 0;
  const op_status st = read_range_locks(tx, kl, lo, hi, [&](std::uint32_t i, key_lock::word_t v) {
    if (n_own == MaxOwn) return false;
    // Insertion sort by key: merged into the walk's order below.
    std::uint32_t j = n_own++;
    for (; j > 0 && own_key[j - 1] > key_lock::key(v); --j) {
      own_key[j] = own_key[j - 1];
      own_word[j] = own_word[j - 1];
      own_lock[j] = own_lock[j - 1];
    }
    own_key[j] = key_lock::key(v);
    own_word[j] = v;
    own_lock[j] = i;
    return true;
  });
  if (st != op_status::ok) return st;
  std::uint32_t bk[Batch], bv[Batch];
  std::uint32_t nb = 0, next_own = 0;
  bool ok = true;
  // Check everything read so far, then hand the batch to f.
  auto flush = [&]() {
    if (!ok) return;
    (void)tx.read(kl.guard());
    if (!tx.active()) {
      ok = false;
      return;
    }
    for (std::uint32_t j = 0; j < nb; ++j) f(bk[j], bv[j]);
    nb = 0;
  };
  auto push = [&](std::uint32_t k, std::uint32_t v) {
    if (!ok) return;
    if (nb == Batch) flush();
    if (!ok) return;
    bk[nb] = k;
    bv[nb++] = v;
  };
  // This transaction's own keys below k, by their views (present ones only).
  auto own_below = [&](std::uint64_t k) {
    for (; next_own < n_own && own_key[next_own] < k; ++next_own)
      if (key_lock::present(own_word[next_own]))
        push(own_key[next_own], own_value(tx, kl, own_lock[next_own], own_word[next_own]));
  };
  for_each_value(lo, hi, [&](std::uint32_t k, std::uint32_t v) {
    own_below(k);
    for (std::uint32_t j = 0; j < n_own; ++j)
      if (own_key[j] == k) return;  // delivered by its view
    push(k, v);
  });
  own_below(std::uint64_t(hi));
  flush();
  return ok ? op_status::ok : op_status::aborted;
}

/// What an update does to its key: insert if absent, remove if present, or
/// (maps) put: insert with a value or assign it.
enum class update_kind : std::uint32_t { insert, remove, put };

/// The owner's side of one_shot_mode (tx_set, tx_skiplist derive from it):
/// the mode its refs are handed (boosted_ref::mode_, copied by ref()).
class one_shot_choice {
 public:
  /// How the one-shot updates of the refs taken from now on run
  /// (one_shot_mode::direct unless the build fixes one). usage_error for a
  /// mode other than the build's fixed one (STM_BOOST_ONE_SHOT).
  void set_one_shot(one_shot_mode m) {
    check_one_shot_mode(m);
    mode_ = m;
  }
  one_shot_mode one_shot() const { return mode_; }

 protected:
  one_shot_mode mode_ = default_one_shot_mode;
};

/// The handle part every boosted set shares (tx_set_ref, tx_skiplist_ref):
/// the key locks, the lock table, the manager, and the one-shot transaction
/// and composed insert / remove (put) written once over them. Derived (CRTP)
/// provides, to this base as a friend: node_pool() (the pool its inserts take
/// nodes from), present_fn() (the native lookup), settle(tx, slot), and
/// has_values (a map: its key locks have value words); for the direct
/// one-shot updates (one_shot_mode::direct): position (where a native search
/// found a key), find_native(key, pos) (the native search: true when key is
/// present, pos filled) and apply_native(key, insert, node, pos, carry,
/// applied) (the native insert of key into node, or remove, from pos when
/// carry, else searching again, calling applied() once the key's presence
/// has changed; nobody else changes the key's presence meanwhile).
template <class Derived, class CM, class Config>
class boosted_ref {
 public:
  using contention_manager = CM;
  using config = Config;

  /// The lock table its transactions use (build composed transactions on it).
  STM_HD lock_table_ref locks() const { return locks_; }
  /// How its one-shot insert and remove run (the owner's set_one_shot).
  STM_HD one_shot_mode one_shot() const { return one_shot_mode_fixed ? default_one_shot_mode : mode_; }

 protected:
  STM_HD const Derived& self() const { return static_cast<const Derived&>(*this); }

  /// One-shot insert (insert = true) or remove of key in this ref's mode:
  /// ok, exists, not_found, full, or capacity.
  STM_HD op_status one_shot_update(std::uint32_t tid, std::uint32_t key, bool insert, tx_counters* counters) const {
#ifdef STM_BOOST_ONE_SHOT
    constexpr one_shot_mode mode = default_one_shot_mode;  // the other paths compile away
#else
    const one_shot_mode mode = mode_;
#endif
    switch (mode) {
      case one_shot_mode::direct: return direct(tid, key, insert, counters, true);
      case one_shot_mode::direct_search: return direct(tid, key, insert, counters, false);
      case one_shot_mode::precheck:
        // The lookup's answer when nothing changes (linearized where lookup()
        // is); else the transaction, which looks again.
        if (lookup(locks_, keys_, key, self().present_fn()) == insert)
          return insert ? op_status::exists : op_status::not_found;
        break;
      case one_shot_mode::transaction: break;
    }
    list::node_slot slot;
    if (insert && (slot.node = self().node_pool().allocate()) == list::node::head) return op_status::full;
    return one_shot(tid, key, insert ? update_kind::insert : update_kind::remove, slot, counters);
  }

  /// The direct one-shot update (one_shot_mode::direct; the argument is in
  /// docs/container-boosting.md, "One-shot updates"). No transaction: a
  /// single-word commit on key k's lock word w, whose read set is w itself.
  /// Loop:
  ///  1. l = w's STM lock word; a final lock (a commit writes back): wait.
  ///  2. v = w. Pending for k: its view answers an update that changes
  ///     nothing (exists / not found, as lookup() answers); the other
  ///     update waits until the owner has applied (the word moves).
  ///  3. Else the native search (find_native: position kept), accepted if w
  ///     still holds v (and, pending for an aliasing key, the same applied
  ///     count): an update that changes nothing answers here (as lookup()).
  ///  4. A change needs w clean and its lock free at l: else wait. An insert
  ///     takes its node now (full when none).
  ///  5. CAS the lock word from free at l's version straight to a final lock
  ///     of ours (no pre-lock: there is nothing to validate but w); then w
  ///     must still hold v (clean values never come back, so no commit on w
  ///     since step 2), else release it unchanged and loop.
  ///  6. Publish as a commit does (stm/detail/tx_writeback.hpp, publish):
  ///     the commit clock's (K) and the lock's stamp when the table keeps a
  ///     clock, (A), the pending value, (B), the release with the version
  ///     bumped. That is the commit point.
  ///  7. Apply natively at once (from the kept position when carry) and
  ///     store the next clean value (store_applied) as soon as the key's
  ///     presence has changed (the level-0 link or mark; with carry before
  ///     the upper levels' links or the unlinking search, which are native
  ///     work a next change of the key may overlap as native operations
  ///     overlap each other; without carry after the whole native operation,
  ///     as settle() does).
  /// Waits are polls with a jittered back-off from 64 ns to 4 us: the
  /// thread holds nothing and stands in no warp collective, and an owner it
  /// waits for (a commit writing back, a committed change being applied)
  /// needs nobody to finish. Counters: a commit per change; aborts count the
  /// loop's retries (read_locked: a wait for a final lock, a claimed lock or
  /// another change of the word; validation: the word moved under a look;
  /// lock: the lock CAS lost).
  STM_HD op_status direct(std::uint32_t tid, std::uint32_t key, bool insert, tx_counters* counters, bool carry) const {
    using namespace key_lock;
    require_thread_id(tid);
    const std::uint32_t i = keys_.map.index_of(key);
    const auto w = keys_.at(i);
    const std::uint32_t li = locks_.index_of(keys_.word(i));
    const auto lw = locks_.word(li);
    const atomic_ref<std::uint64_t> applied(keys_.applied[i]);
    typename Derived::position pos;  // filled by find_native before any use
    std::uint32_t fresh = list::node::head;
    exp_backoff pause = exp_backoff::jittered(64, 4096, tid);
    std::uint64_t n_commits = 0, n_locked = 0, n_moved = 0, n_lost = 0;
    op_status st = op_status::ok;
    for (;;) {
      const std::uint32_t l = lw.load(memory_order_acquire);  // pairs with (B): the write-back of its version
      if (lock_word::is_final(l)) {
        ++n_locked;
        pause.wait();
        continue;
      }
      const word_t v = w.load(memory_order_acquire);
      if (pending(v) && key_lock::key(v) == key) {
        if (present(v) == insert) {  // the committed view: nothing to change
          st = insert ? op_status::exists : op_status::not_found;
          break;
        }
        ++n_locked;
        pause.wait();
        continue;
      }
      const std::uint64_t a = pending(v) ? applied.load(memory_order_relaxed) : 0;
      const bool here = self().find_native(key, pos);
      if (w.load(memory_order_acquire) != v || (pending(v) && applied.load(memory_order_relaxed) != a)) {
        ++n_moved;
        continue;
      }
      if (here == insert) {  // the native answer: nothing to change
        st = insert ? op_status::exists : op_status::not_found;
        break;
      }
      if (pending(v) || !lock_word::is_free(l)) {  // an aliasing key's change, or a committer's claim
        ++n_locked;
        pause.wait();
        continue;
      }
      if (insert && fresh == list::node::head && (fresh = self().node_pool().allocate()) == list::node::head) {
        st = op_status::full;
        break;
      }
      const std::uint32_t ver = lock_word::version(l);
      std::uint32_t expect = lock_word::make_unlocked(ver);
      // Acquire: the look at w below comes after the lock is ours.
      if (!lw.compare_exchange_strong(expect, lock_word::make_locked(ver, tid), memory_order_acquire,
                                      memory_order_relaxed)) {
        ++n_lost;
        continue;
      }
      if (w.load(memory_order_relaxed) != v) {  // a commit since step 2 (the version wrapped): nothing written
        lw.store(lock_word::make_unlocked(ver), memory_order_relaxed);
        ++n_moved;
        continue;
      }
      if (locks_.has_clock()) {  // (K) and the stamp, under the final lock (publish())
        const std::uint64_t stamp = locks_.clock_word().fetch_add(1, memory_order_release) + 1;
        locks_.stamp(li).store(stamp, memory_order_relaxed);
      }
      platform::fence_release();  // (A) the final lock before the write-back; pairs with the reader's (R)
      w.store(make_pending(key, tid, insert, insert ? apply_insert : apply_remove), memory_order_relaxed);
      platform::fence_release();  // (B) the write-back before the release; pairs with the reader's acquire load
      lw.store(lock_word::make_unlocked(lock_word::next_version(ver)), memory_order_relaxed);
      ++n_commits;
      // The key's presence changes at the native link or mark; the clean
      // value follows it at once (the upper levels' links, the unlinking
      // search come after: native work that a next change of the key may
      // overlap, as the native operations overlap each other).
      self().apply_native(key, insert, fresh, pos, carry, [&] { store_applied(keys_, i); });
      fresh = list::node::head;  // linked
      break;
    }
    if (fresh != list::node::head) self().node_pool().retire(fresh);  // never published
    if (counters) {
      counters->commits += n_commits;
      counters->aborts[static_cast<std::uint32_t>(abort_cause::read_locked)] += n_locked;
      counters->aborts[static_cast<std::uint32_t>(abort_cause::validation)] += n_moved;
      counters->aborts[static_cast<std::uint32_t>(abort_cause::lock)] += n_lost;
    }
    return st;
  }

  /// insert (insert = true, slot holding the node reserved for it) or remove
  /// of key as one transaction of its own, settled: ok, exists, not_found, or
  /// capacity.
  STM_HD op_status one_shot(std::uint32_t tid, std::uint32_t key, update_kind kind, list::node_slot& slot,
                            tx_counters* counters, std::uint32_t value = 0) const {
    transaction<CM, Config> tx(locks_, tid, cm_);
    op_status st = op_status::ok;
    TX_BEGIN(tx) {
      st = update_in(tx, key, kind, slot, value);
      // exists / not_found: a fact of the snapshot the read saw; nothing to commit.
      if (st != op_status::ok) TX_SEMANTIC_ABORT(tx);
    }
    TX_END(tx);
    self().settle(tx, slot);
    if (counters) *counters += tx.counters();
    if (tx.committed()) return op_status::ok;
    return st == op_status::exists || st == op_status::not_found || st == op_status::full ? st : op_status::capacity;
  }

  /// An update of key on tx: steps 1-4 of the header. The slot's mark
  /// (attempt, key, lock) changes only when this call makes the key pending:
  /// an answer that changes nothing (exists, not found) leaves the change an
  /// earlier call on the slot made in this attempt. An insert's node: the
  /// slot's (a one-shot insert takes it before its transaction), else one
  /// taken here when the key must be inserted natively.
  template <class Tx>
  STM_HD op_status update_in(Tx& tx, std::uint32_t key, update_kind kind, list::node_slot& slot,
                             std::uint32_t value = 0) const {
    observed o;
    const op_status st = observe(tx, keys_, key, self().present_fn(), o);
    if (st != op_status::ok) return st;
    const bool now_present = kind != update_kind::remove;
    if (kind != update_kind::put && o.present == now_present) return now_present ? op_status::exists : op_status::not_found;
    const bool native = o.own ? key_lock::native_present(o.value) : o.present;
    if (now_present && !native && slot.node == list::node::head &&
        (slot.node = self().node_pool().allocate()) == list::node::head)
      return op_status::full;
    // Maps: a put stages its value; an insert that finds the key present
    // natively (this transaction removed it) stages 0, a new key's value.
    const bool stage = Derived::has_values && (kind == update_kind::put || (now_present && native));
    if (!make_pending(tx, keys_, key, o, now_present, stage, kind == update_kind::put ? value : 0u))
      return op_status::aborted;
    slot.attempt = tx.attempts() + 1;
    slot.key = key;
    slot.lock = o.lock;
    return op_status::ok;
  }

  key_locks_ref keys_{};
  lock_table_ref locks_{};
  CM cm_{};
  one_shot_mode mode_ = default_one_shot_mode;
};

}  // namespace stm::containers::detail
