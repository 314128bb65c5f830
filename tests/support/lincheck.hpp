// SPDX-License-Identifier: Apache-2.0
// tests/support/lincheck.hpp - linearizability checker for the container tests.
//
// A test records a concurrent history (one lin::op per completed operation,
// with invoke/response stamps from one shared counter), then asks whether some
// order of the operations that respects real time explains every result under
// a sequential model:
//
//   lin::recorder rec(Exec::where, 4096);          // owner; rec.ref() goes into the threads
//   ... in each thread:
//     lin::op o; o.thread = tid; o.kind = lin::stack_model::push; o.arg = v;
//     o.invoke = r.now();
//     o.ok = stack.push(v);
//     o.response = r.now();
//     r.record(o);
//   ... on the host:
//   auto res = lin::check(rec.history(), lin::stack_model{});
//   EXPECT_TRUE(res.linearizable) << res.explanation;
//
// Search: Wing & Gong's backtracking over "minimal" ops (invoked before every
// unlinearized op's response), in the just-in-time form of Lowe ("Testing for
// linearizability", 2017) and porcupine: a linked list of call/return events
// from which linearized ops are lifted, plus a memo of visited
// (linearized-op bitset, model fingerprint) pairs, so that each configuration
// is expanded once. Models without fingerprint() get no memo (plain Wing &
// Gong, exponential in the worst case; max_states bounds it).
//
// The ready-made models add sound shortcuts through optional hooks (see
// check()): a quick pattern check that refutes most broken stack/queue
// histories outright, candidate priorities, renaming of never-read values,
// "decisive" ops that need no alternatives, and, for the stack, pruning of
// push orders that the pops rule out and precedences that the values'
// lifetimes force (order(): in histories where nearly every op overlaps all
// others, a wrong order of two pushes otherwise shows only when their values
// come out, after an exponential detour). The tests compare every verdict with the
// bare search. Cost, measured on random stack histories where every op
// overlaps those of all other threads (the hardest model; queue and set are
// far cheaper): 8 threads x 200 ops, at most a few 10^4 states (milliseconds);
// 16 threads x 100 ops, at most ~5 * 10^5 states (< 0.1 s); 16 threads x 200
// ops, median ~6 * 10^3 states but a tail up to ~1.5 * 10^7 (seconds). So with
// 16 or more recording threads prefer many histories of ~100 ops to one long.
//
// For the shortcuts to apply, keep stack/queue values unique within a history
// (each value pushed once) and start from an empty container; otherwise the
// checker stays correct but may search far longer.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "stm/backend.hpp"
#include "stm/buffer.hpp"
#include "stm/error.hpp"
#include "stm/platform.hpp"

namespace stm_test::lin {

// --- history ----------------------------------------------------------------

/// One completed operation of a concurrent history. invoke/response are
/// logical timestamps from one shared atomic counter (taken before the call and
/// after it returns), so a.response < b.invoke means a precedes b in real time.
/// Equal stamps count as overlapping. Every op must have invoke < response.
struct op {
  std::uint32_t thread = 0;
  std::uint32_t kind = 0;  // model-defined (e.g. 0 = push, 1 = pop)
  std::uint64_t arg = 0;   // argument (value pushed, key inserted, ...)
  std::uint64_t ret = 0;   // returned value (value popped, ...)
  bool ok = false;         // success flag returned (pop found an item, insert added, ...)
  std::uint64_t invoke = 0;
  std::uint64_t response = 0;
};
static_assert(std::is_trivially_copyable_v<op>, "ops are written by device code and copied as bytes");

/// Device- or host-side handle that stamps and appends ops; trivially copyable,
/// pass it by value into kernels and thread bodies. Both counters are reached
/// only through device-scope atomic_refs.
///
/// Note for users: the seq_cst fetch_add on the shared clock is itself a
/// device-wide synchronization point around every op, so recorded runs can
/// hide a missing fence in the code under test; keep unrecorded stress runs too.
struct recorder_ref {
  op* ops;
  std::uint32_t capacity;
  std::uint32_t* count;
  std::uint64_t* clock;

  /// Next logical timestamp. seq_cst on the single clock word: all stamps are
  /// totally ordered, and an op stamped later started after every op whose
  /// response stamp is earlier (pairs with the other threads' now()).
  STM_HD std::uint64_t now() const {
    return stm::atomic_ref<std::uint64_t>(*clock).fetch_add(1, stm::memory_order_seq_cst);
  }
  /// Append o. Past capacity the op is dropped but *count still grows, so the
  /// owner sees the overflow (a history with missing ops cannot be checked).
  /// relaxed: the slot index only has to be unique; the host reads the ops
  /// after the launch has completed.
  STM_HD void record(const op& o) const {
    const std::uint32_t i = stm::atomic_ref<std::uint32_t>(*count).fetch_add(1, stm::memory_order_relaxed);
    if (i < capacity) ops[i] = o;
  }
};
static_assert(std::is_trivially_copyable_v<recorder_ref>, "refs are passed by value into kernels");

/// Move-only owner of a recording on either backend (host or device memory).
class recorder {
 public:
  recorder(stm::backend where, std::uint32_t capacity)
      : ops_(where, capacity), count_(where, 1), clock_(where, 1), capacity_(capacity) {}

  recorder_ref ref() const { return recorder_ref{ops_.data(), capacity_, count_.data(), clock_.data()}; }

  /// Ops recorded so far, including dropped ones (read after the run).
  std::uint32_t recorded() const { return count_.to_vector()[0]; }
  bool overflowed() const { return recorded() > capacity_; }

  /// The recorded history; throws stm::usage_error when ops were dropped.
  std::vector<op> history() const {
    const std::uint32_t n = recorded();
    if (n > capacity_)
      throw stm::usage_error("lin::recorder overflowed: " + std::to_string(n) + " ops for a capacity of " +
                             std::to_string(capacity_) + "; a history with dropped ops cannot be checked");
    std::vector<op> h(n);
    ops_.download(h.data(), n);
    return h;
  }

 private:
  stm::buffer<op> ops_;
  stm::buffer<std::uint32_t> count_;
  stm::buffer<std::uint64_t> clock_;
  std::uint32_t capacity_;
};

// --- histories in files ------------------------------------------------------
//
// A history that a test could not decide, or found wrong, can be written out
// and checked again offline (tests/support_tests/lincheck_tests.cpp re-checks
// the file named by STM_LIN_RECHECK). Format: a first line "# " + header
// (free text; the re-check reads "model=stack|queue|set", "capacity=N" and
// "initial=a,b,c" from it), then one op per line:
//   thread kind arg ret ok invoke response

/// Writes `h` to `path` (replacing it) with `header` on its first line.
/// Throws std::runtime_error when the file cannot be written.
inline void write_history(const std::string& path, const std::string& header, const std::vector<op>& h) {
  std::ofstream f(path);
  f << "# " << header << "\n";
  for (const op& o : h)
    f << o.thread << " " << o.kind << " " << o.arg << " " << o.ret << " " << (o.ok ? 1 : 0) << " " << o.invoke << " "
      << o.response << "\n";
  f.flush();
  if (!f) throw std::runtime_error("lin::write_history: cannot write " + path);
}

/// Reads a file written by write_history; its header (without "# ") goes to
/// *header. Throws std::runtime_error on a missing file or a malformed line.
inline std::vector<op> read_history(const std::string& path, std::string* header = nullptr) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("lin::read_history: cannot open " + path);
  std::vector<op> h;
  std::string line;
  for (std::size_t n = 1; std::getline(f, line); ++n) {
    if (line.empty()) continue;
    if (line[0] == '#') {
      if (header && n == 1) *header = line.size() > 2 ? line.substr(2) : std::string();
      continue;
    }
    std::istringstream in(line);
    op o;
    int ok = -1;
    std::string rest;
    if (!(in >> o.thread >> o.kind >> o.arg >> o.ret >> ok >> o.invoke >> o.response) || (ok != 0 && ok != 1) ||
        (in >> rest))
      throw std::runtime_error("lin::read_history: " + path + ":" + std::to_string(n) +
                               ": expected 'thread kind arg ret ok invoke response', got '" + line + "'");
    o.ok = ok == 1;
    h.push_back(o);
  }
  return h;
}

// --- batches of independent histories ----------------------------------------
//
// One launch can record many histories at once: `instances` copies of a test,
// each with its own container, its own op region, count and clock, so the
// histories share nothing but the launch. The host then checks them in
// parallel (check_each).
//
//   const lin::batch_layout L = lin::layout(Exec::where, instances, threads);
//   lin::batch_recorder rec(Exec::where, instances, ops_per_history);
//   const auto br = rec.ref();
//   Exec::run(L.threads(), [=] STM_HD(std::uint32_t t) {
//     if (!L.active(t)) return;
//     const auto rr = br.at(L.instance(t));   // this instance's recorder
//     const std::uint32_t tid = L.lane(t);    // its thread id in the history
//     ...
//   });
//   const auto hs = rec.histories();          // hs[i]: instance i's history
//   const auto why = lin::check_each(instances, [&](std::uint32_t i) { ... return ""; });

/// Thread layout of a batched launch: `instances` copies of `lanes` threads.
/// On the GPU every copy starts at a warp boundary (span = lanes rounded up
/// to 32) and the lanes past `lanes` stay idle: warp-cooperative calls (the
/// stacks' warp elimination and batching) combine every active lane of a
/// warp, and must never mix two copies' containers. On the CPU span = lanes.
struct batch_layout {
  std::uint32_t instances;
  std::uint32_t lanes;
  std::uint32_t span;
  std::uint32_t threads() const { return instances * span; }
  STM_HD std::uint32_t instance(std::uint32_t t) const { return t / span; }
  STM_HD std::uint32_t lane(std::uint32_t t) const { return t % span; }
  STM_HD bool active(std::uint32_t t) const { return t % span < lanes; }
};

inline batch_layout layout(stm::backend where, std::uint32_t instances, std::uint32_t lanes) {
  const std::uint32_t span = where == stm::backend::gpu ? (lanes + 31) / 32 * 32 : lanes;
  if (instances == 0 || lanes == 0 || std::uint64_t(instances) * span > 0xFFFFFFFFull)
    throw stm::usage_error("lin::layout: " + std::to_string(instances) + " instances of " + std::to_string(lanes) +
                           " lanes do not make a launch");
  return {instances, lanes, span};
}

/// Handle on a batch of recordings; at(i) is instance i's recorder_ref.
/// Counts and clocks sit a cache line apart, so that the instances' stamps do
/// not contend with each other.
struct batch_recorder_ref {
  static constexpr std::uint32_t count_stride = 32, clock_stride = 16;  // 128 bytes
  op* ops;
  std::uint32_t capacity;
  std::uint32_t* counts;
  std::uint64_t* clocks;
  STM_HD recorder_ref at(std::uint32_t i) const {
    return recorder_ref{ops + std::size_t(i) * capacity, capacity, counts + std::size_t(i) * count_stride,
                        clocks + std::size_t(i) * clock_stride};
  }
};
static_assert(std::is_trivially_copyable_v<batch_recorder_ref>, "refs are passed by value into kernels");

/// Move-only owner of `instances` recordings of `capacity` ops each.
class batch_recorder {
 public:
  batch_recorder(stm::backend where, std::uint32_t instances, std::uint32_t capacity)
      : ops_(where, std::size_t(instances) * capacity),
        counts_(where, std::size_t(instances) * batch_recorder_ref::count_stride),
        clocks_(where, std::size_t(instances) * batch_recorder_ref::clock_stride),
        instances_(instances),
        capacity_(capacity) {}

  batch_recorder_ref ref() const { return {ops_.data(), capacity_, counts_.data(), clocks_.data()}; }
  std::uint32_t instances() const { return instances_; }

  /// Every instance's history (two downloads for the whole batch); throws
  /// stm::usage_error when an instance dropped ops.
  std::vector<std::vector<op>> histories() const {
    const auto counts = counts_.to_vector();
    const auto all = ops_.to_vector();
    std::vector<std::vector<op>> out(instances_);
    for (std::uint32_t i = 0; i < instances_; ++i) {
      const std::uint32_t n = counts[std::size_t(i) * batch_recorder_ref::count_stride];
      if (n > capacity_)
        throw stm::usage_error("lin::batch_recorder: instance " + std::to_string(i) + " recorded " + std::to_string(n) +
                               " ops for a capacity of " + std::to_string(capacity_) +
                               "; a history with dropped ops cannot be checked");
      const auto first = all.begin() + std::ptrdiff_t(std::size_t(i) * capacity_);
      out[i].assign(first, first + n);
    }
    return out;
  }

 private:
  stm::buffer<op> ops_;
  stm::buffer<std::uint32_t> counts_;
  stm::buffer<std::uint64_t> clocks_;
  std::uint32_t instances_, capacity_;
};

/// Runs f(i) for every i in [0, n) on up to hardware_concurrency() host
/// threads and returns what each call returned: an empty string when
/// instance i passed, else why it failed (or a richer type constructible from
/// that string, such as stm_test::verdict). f runs concurrently with itself,
/// so it must only read shared state (and touch neither GoogleTest assertions
/// nor the device); an exception it throws becomes instance i's failure.
template <class F>
auto check_each(std::uint32_t n, F f) {
  using R = decltype(f(std::uint32_t{0}));
  std::vector<R> why(n);
  std::atomic<std::uint32_t> next{0};
  auto work = [&] {
    for (std::uint32_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) {
      try {
        why[i] = f(i);
      } catch (const std::exception& e) {
        why[i] = R(std::string("exception: ") + e.what());
      }
    }
  };
  const std::uint32_t workers = std::min<std::uint32_t>(n, std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (std::uint32_t w = 1; w < workers; ++w) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  return why;
}

// --- result -----------------------------------------------------------------

struct result {
  bool linearizable;
  std::string explanation;  // empty when linearizable
  std::uint64_t states_explored;
};

/// Explanations of an undecided search start with this text.
inline constexpr const char* search_limit_text = "search limit reached";

/// True when check() gave up at max_states: the history is undecided, not
/// proven wrong (linearizable is false all the same). history_count
/// (reliability.hpp) counts such histories apart from violations and fails a
/// test only when they pass 1 in 10,000; write them out (write_history) and
/// re-check them offline with a higher limit.
inline bool hit_search_limit(const result& r) {
  return !r.linearizable && r.explanation.rfind(search_limit_text, 0) == 0;
}

namespace detail {

inline std::uint64_t mix(std::uint64_t x) {  // splitmix64 finalizer
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

template <class M, class = void>
struct has_fingerprint : std::false_type {};
template <class M>
struct has_fingerprint<M, std::void_t<decltype(std::declval<const M&>().fingerprint())>>
    : std::is_convertible<decltype(std::declval<const M&>().fingerprint()), std::uint64_t> {};

template <class M, class = void>
struct has_describe_op : std::false_type {};
template <class M>
struct has_describe_op<M, std::void_t<decltype(std::declval<const M&>().describe(std::declval<const op&>()))>>
    : std::true_type {};

template <class M, class = void>
struct has_describe_state : std::false_type {};
template <class M>
struct has_describe_state<M, std::void_t<decltype(std::declval<const M&>().describe())>> : std::true_type {};

template <class M, class = void>
struct has_priorities : std::false_type {};
template <class M>
struct has_priorities<
    M, std::void_t<decltype(std::declval<const M&>().priorities(std::declval<const std::vector<op>&>()))>>
    : std::true_type {};

template <class M, class = void>
struct has_simplify : std::false_type {};
template <class M>
struct has_simplify<
    M, std::void_t<decltype(std::declval<const M&>().simplify(std::declval<const std::vector<op>&>()))>>
    : std::true_type {};

template <class M, class = void>
struct has_decisive : std::false_type {};
template <class M>
struct has_decisive<M, std::void_t<decltype(std::declval<const M&>().decisive(std::declval<const op&>()))>>
    : std::true_type {};

template <class M, class = void>
struct has_refute : std::false_type {};
template <class M>
struct has_refute<M, std::void_t<decltype(std::declval<const M&>().refute(std::declval<const std::vector<op>&>()))>>
    : std::true_type {};

template <class M, class = void>
struct has_order : std::false_type {};
template <class M>
struct has_order<M, std::void_t<decltype(std::declval<const M&>().order(std::declval<const std::vector<op>&>()))>>
    : std::true_type {};

template <class M, class = void>
struct has_apply : std::false_type {};
template <class M>
struct has_apply<M, std::void_t<decltype(std::declval<M&>().apply(std::declval<const op&>()))>>
    : std::is_convertible<decltype(std::declval<M&>().apply(std::declval<const op&>())), bool> {};

/// Visited (bitset, fingerprint) pairs. Keys are stored whole and compared
/// exactly; only the model fingerprint can collide (see check()).
class memo {
 public:
  explicit memo(std::size_t words) : words_(words), slots_(1024, 0) {}

  /// Inserts the key; false when it was already there.
  bool insert(const std::vector<std::uint64_t>& bits, std::uint64_t fp, std::uint64_t bits_hash) {
    if ((count_ + 1) * 2 > slots_.size()) grow();
    const std::uint64_t h = mix(bits_hash ^ mix(fp));
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t s = h & mask;; s = (s + 1) & mask) {
      const std::uint32_t rec = slots_[s];
      if (rec == 0) {
        slots_[s] = static_cast<std::uint32_t>(count_ + 1);
        arena_.insert(arena_.end(), bits.begin(), bits.end());
        arena_.push_back(fp);
        hashes_.push_back(h);
        ++count_;
        return true;
      }
      if (hashes_[rec - 1] == h && same(rec - 1, bits, fp)) return false;
    }
  }

 private:
  bool same(std::size_t rec, const std::vector<std::uint64_t>& bits, std::uint64_t fp) const {
    const std::uint64_t* r = arena_.data() + rec * (words_ + 1);
    return r[words_] == fp && std::equal(bits.begin(), bits.end(), r);
  }
  void grow() {
    std::vector<std::uint32_t> bigger(slots_.size() * 2, 0);
    const std::size_t mask = bigger.size() - 1;
    for (std::size_t rec = 0; rec < count_; ++rec) {
      std::size_t s = hashes_[rec] & mask;
      while (bigger[s] != 0) s = (s + 1) & mask;
      bigger[s] = static_cast<std::uint32_t>(rec + 1);
    }
    slots_.swap(bigger);
  }

  std::size_t words_;
  std::vector<std::uint64_t> arena_;   // per record: words_ bitset words, then the fingerprint
  std::vector<std::uint64_t> hashes_;  // per record
  std::vector<std::uint32_t> slots_;   // open addressing, 0 = empty, else record + 1
  std::size_t count_ = 0;
};

template <class Model>
std::string describe_op(const Model& m, const std::vector<op>& h, std::size_t i) {
  const op& o = h[i];
  std::ostringstream s;
  s << "#" << i << " t" << o.thread << " ";
  if constexpr (has_describe_op<Model>::value) {
    s << m.describe(o);
  } else {
    (void)m;
    s << "kind " << o.kind << " arg " << o.arg << " -> ok " << o.ok << " ret " << o.ret;
  }
  s << " [" << o.invoke << ", " << o.response << "]";
  return s.str();
}

}  // namespace detail

/// Is `history` linearizable with respect to the sequential specification
/// `initial`?
///
/// Model requirements: copyable, and `bool apply(const op& o)`: true if o,
/// applied now to this state, returns exactly what o recorded (o.ok, and o.ret
/// where the kind returns a value); it then updates the state. apply may be
/// called on a copy and the copy discarded.
/// Optional members:
///  - `std::uint64_t fingerprint() const`: enables the memo. Distinct states
///    reached with the same set of applied ops must have distinct fingerprints
///    (a 64-bit hash is fine: a collision can only prune a branch, i.e. give a
///    false "not linearizable", never a false "linearizable");
///  - `std::string describe(const op&) const` and `std::string describe() const`:
///    readable ops and state in explanations;
///  - `std::vector<std::uint64_t> priorities(const std::vector<op>&) const`:
///    one key per op; candidates are tried in ascending key (then invoke)
///    order. Speed only, never the verdict;
///  - `std::vector<op> simplify(const std::vector<op>&) const`: the history the
///    search runs on, rewritten so that it has the same verdict and fewer
///    distinct states (e.g. renaming values no op ever reads back);
///  - `bool decisive(const op&) const`: true when o, once it applied, need not
///    be tried in any other place: any linearization of the rest can be
///    reordered to take o now (read-only ops; a pop that found its value on
///    top). The other candidates at that point are then skipped;
///  - `std::string refute(const std::vector<op>&) const`: a quick, sound
///    check run before the search; a non-empty reason means not linearizable;
///  - `std::vector<std::pair<std::uint32_t, std::uint32_t>> order(const
///    std::vector<op>&) const`, given the history: pairs (a, b)
///    of op indices such that a precedes b in every linearization that the
///    model accepts, beyond real time (e.g. for a stack, an empty pop that must
///    come before a push whose value stays until after the pop returned). The
///    search then never tries b before a: a wrong order dies at once instead
///    of when a response much later rules it out.
///
/// max_states bounds the number of apply() calls. Reaching it returns
/// linearizable = false with an explanation starting "search limit reached"
/// (hit_search_limit()): undecided, not proven wrong; tests count such
/// histories apart (reliability.hpp) and keep them for an offline re-check.
/// A malformed history (invoke >= response, or two ops of one
/// thread overlapping) is reported as not linearizable with the reason.
template <class Model>
result check(const std::vector<op>& history, const Model& initial, std::uint64_t max_states = 50'000'000) {
  static_assert(detail::has_apply<Model>::value, "a lin model needs bool apply(const lin::op&)");
  static_assert(std::is_copy_constructible_v<Model> && std::is_copy_assignable_v<Model>,
                "a lin model is copied at every step of the search");
  const std::size_t n = history.size();
  if (n == 0) return {true, "", 0};
  if (n >= (std::size_t{1} << 31)) return {false, "history too large to check", 0};

  // Malformed input would make the search answer a different question.
  for (std::size_t i = 0; i < n; ++i)
    if (history[i].invoke >= history[i].response)
      return {false, "malformed history: invoke >= response in " + detail::describe_op(initial, history, i), 0};
  {
    std::vector<std::uint32_t> by_thread(n);
    for (std::size_t i = 0; i < n; ++i) by_thread[i] = static_cast<std::uint32_t>(i);
    std::sort(by_thread.begin(), by_thread.end(), [&](std::uint32_t a, std::uint32_t b) {
      const op &x = history[a], &y = history[b];
      return x.thread != y.thread ? x.thread < y.thread : x.invoke < y.invoke;
    });
    for (std::size_t k = 1; k < n; ++k) {
      const op &a = history[by_thread[k - 1]], &b = history[by_thread[k]];
      if (a.thread == b.thread && b.invoke <= a.response)
        return {false,
                "malformed history: two ops of one thread overlap: " +
                    detail::describe_op(initial, history, by_thread[k - 1]) + " and " +
                    detail::describe_op(initial, history, by_thread[k]),
                0};
    }
  }

  if constexpr (detail::has_refute<Model>::value) {
    std::string why = initial.refute(history);
    if (!why.empty()) return {false, "not linearizable: " + why, 0};
  }

  // The search runs on `ops`: the history as the model may simplify it (same
  // verdict, fewer distinct states); explanations quote the history as given.
  std::vector<op> simplified;
  if constexpr (detail::has_simplify<Model>::value) simplified = initial.simplify(history);
  const std::vector<op>& ops = simplified.size() == n ? simplified : history;

  // Events: entry 2i is op i's call, 2i+1 its return; sorted by time, calls
  // before returns at equal stamps (equal stamps overlap). A doubly linked
  // list over them, headed by a sentinel, from which linearized ops are lifted.
  // The candidates at any point are the calls before the first return left in
  // the list: at most one per thread.
  constexpr std::uint32_t nil = 0xffffffffu;
  const std::uint32_t ne = static_cast<std::uint32_t>(2 * n);
  const std::uint32_t head = ne;
  std::vector<std::uint32_t> order(ne);
  for (std::uint32_t e = 0; e < ne; ++e) order[e] = e;
  auto stamp = [&](std::uint32_t e) { return (e & 1) ? history[e / 2].response : history[e / 2].invoke; };
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const std::uint64_t ta = stamp(a), tb = stamp(b);
    if (ta != tb) return ta < tb;
    if ((a & 1) != (b & 1)) return (a & 1) == 0;
    return a < b;
  });
  std::vector<std::uint32_t> next(ne + 1, nil), prev(ne + 1, nil);
  {
    std::uint32_t last = head;
    for (std::uint32_t e : order) {
      next[last] = e;
      prev[e] = last;
      last = e;
    }
  }
  auto unlink = [&](std::uint32_t e) {
    next[prev[e]] = next[e];
    if (next[e] != nil) prev[next[e]] = prev[e];
  };
  auto relink = [&](std::uint32_t e) {
    next[prev[e]] = e;
    if (next[e] != nil) prev[next[e]] = e;
  };
  // Lifting removes the call, then the return; restoring goes in reverse
  // order so that each relink sees the neighbours it had when unlinked.
  auto lift = [&](std::uint32_t call) {
    unlink(call);
    unlink(call + 1);
  };
  auto unlift = [&](std::uint32_t call) {
    relink(call + 1);
    relink(call);
  };

  // Order in which candidates are tried: the model's priorities if it has
  // them (they only change the speed, never the verdict), else invoke order.
  std::vector<std::uint32_t> rank(n);
  {
    std::vector<std::uint64_t> prio(n, 0);
    if constexpr (detail::has_priorities<Model>::value) {
      prio = initial.priorities(ops);
      if (prio.size() != n) prio.assign(n, 0);
    }
    std::vector<std::uint32_t> by(n);
    for (std::uint32_t i = 0; i < n; ++i) by[i] = i;
    std::sort(by.begin(), by.end(), [&](std::uint32_t a, std::uint32_t b) {
      if (prio[a] != prio[b]) return prio[a] < prio[b];
      if (history[a].invoke != history[b].invoke) return history[a].invoke < history[b].invoke;
      return a < b;
    });
    for (std::uint32_t r = 0; r < n; ++r) rank[by[r]] = r;
  }

  // Extra precedences from the model: an op is a candidate only once all of
  // its `before` ops are linearized (blocked[i] counts those still pending).
  std::vector<std::vector<std::uint32_t>> after_of(n);
  std::vector<std::uint32_t> blocked(n, 0);
  if constexpr (detail::has_order<Model>::value) {
    for (const auto& ab : initial.order(history))
      if (ab.first < n && ab.second < n && ab.first != ab.second) {
        after_of[ab.first].push_back(ab.second);
        ++blocked[ab.second];
      }
  }

  const std::size_t words = (n + 63) / 64;
  std::vector<std::uint64_t> bits(words, 0);
  std::vector<std::uint64_t> zobrist(n);  // incremental hash of the bitset
  for (std::size_t i = 0; i < n; ++i) zobrist[i] = detail::mix(0x6c696e636865636bull + i);
  std::uint64_t bits_hash = 0;
  auto flip = [&](std::uint32_t i) {
    bits[i / 64] ^= std::uint64_t{1} << (i % 64);
    bits_hash ^= zobrist[i];
  };
  detail::memo seen(words);

  // Depth-first search. Level k holds the candidates (a segment of `pool`)
  // after k ops are linearized; frame k the op taken there and the state
  // before it.
  struct level {
    std::size_t begin, pos, end;
  };
  struct frame {
    std::uint32_t call;
    Model before;
  };
  std::vector<std::uint32_t> pool;
  std::vector<level> levels;
  std::vector<frame> frames;
  frames.reserve(n);
  levels.reserve(n + 1);
  Model state = initial;
  std::uint64_t explored = 0;

  auto open_level = [&] {
    const std::size_t b = pool.size();
    for (std::uint32_t e = next[head]; e != nil && (e & 1) == 0; e = next[e])
      if (blocked[e / 2] == 0) pool.push_back(e);
    std::sort(pool.begin() + static_cast<std::ptrdiff_t>(b), pool.end(),
              [&](std::uint32_t a, std::uint32_t c) { return rank[a / 2] < rank[c / 2]; });
    levels.push_back(level{b, b, pool.size()});
  };

  // Deepest dead end of the search, for the explanation.
  std::size_t best_depth = 0;
  bool have_best = false;
  std::vector<std::uint32_t> best_prefix;
  std::uint32_t best_blocker = nil;
  auto note_dead_end = [&] {
    if (have_best && frames.size() <= best_depth) return;
    have_best = true;
    best_depth = frames.size();
    best_prefix.clear();
    for (const frame& f : frames) best_prefix.push_back(f.call / 2);
    best_blocker = nil;
    for (std::uint32_t e = next[head]; e != nil; e = next[e])
      if (e & 1) {
        best_blocker = e / 2;
        break;
      }
  };
  auto explain = [&](const std::string& headline) {
    std::ostringstream s;
    s << headline << " (" << n << " ops, " << explored << " states explored).\n";
    s << "Longest linearizable prefix found: " << best_depth << " of " << n << " ops";
    constexpr std::size_t shown = 24;
    if (best_prefix.size() > shown) s << "; its last " << shown;
    s << ":\n";
    for (std::size_t k = best_prefix.size() > shown ? best_prefix.size() - shown : 0; k < best_prefix.size(); ++k)
      s << "  " << detail::describe_op(initial, history, best_prefix[k]) << "\n";
    if constexpr (detail::has_describe_state<Model>::value) {
      // Replayed on the history as given, so simplify() renamings do not show.
      Model st = initial;
      for (std::uint32_t i : best_prefix) st.apply(history[i]);
      s << "State after it: " << st.describe() << "\n";
    }
    if (best_blocker != nil) {
      s << "No op that may come next can be applied there (a model may also refuse an op that the rest of the "
           "history rules out); the one that must come before any later response:\n  "
        << detail::describe_op(initial, history, best_blocker) << "\n";
      std::vector<char> done(n, 0);
      for (std::uint32_t i : best_prefix) done[i] = 1;
      std::size_t listed = 0;
      for (std::uint32_t e : order) {
        if (e & 1) {
          if (!done[e / 2]) break;  // the first unlinearized response ends the candidates
          continue;
        }
        if (done[e / 2] || e / 2 == best_blocker) continue;
        if (listed++ == 0) s << "Other candidates, all refused:\n";
        s << "  " << detail::describe_op(initial, history, e / 2) << "\n";
      }
    }
    return s.str();
  };

  open_level();
  while (frames.size() < n) {
    level& lv = levels.back();
    if (lv.pos == lv.end) {  // dead end: the first op left to respond cannot be placed
      note_dead_end();
      if (frames.empty()) return {false, explain("not linearizable"), explored};
      pool.resize(lv.begin);
      levels.pop_back();
      frame& f = frames.back();
      state = std::move(f.before);
      flip(f.call / 2);
      for (std::uint32_t b : after_of[f.call / 2]) ++blocked[b];
      unlift(f.call);
      frames.pop_back();
      continue;
    }
    const std::uint32_t e = pool[lv.pos++];
    if (explored >= max_states) {
      if (!have_best) note_dead_end();
      return {false,
              explain(std::string(search_limit_text) + ": undecided, not proven wrong; max_states = " +
                      std::to_string(max_states)),
              explored};
    }
    ++explored;
    const std::uint32_t i = e / 2;
    Model after = state;
    if (!after.apply(ops[i])) continue;
    if constexpr (detail::has_decisive<Model>::value)
      if (initial.decisive(ops[i])) lv.pos = lv.end;  // no alternative here can do better
    flip(i);
    bool fresh = true;
    if constexpr (detail::has_fingerprint<Model>::value)
      fresh = seen.insert(bits, static_cast<std::uint64_t>(after.fingerprint()), bits_hash);
    if (!fresh) {  // this configuration was expanded before and led nowhere
      flip(i);
      continue;
    }
    frames.push_back(frame{e, std::move(state)});
    state = std::move(after);
    for (std::uint32_t b : after_of[i]) --blocked[b];
    lift(e);
    open_level();
  }
  return {true, "", explored};
}

// --- ready-made models --------------------------------------------------------

namespace detail {

/// Who put each value in a stack/queue and who took it out, for histories
/// where every successful put has its own value.
struct value_flow {
  bool unique = true;
  std::unordered_map<std::uint64_t, std::uint32_t> producer, consumer;
};

inline value_flow flow_of(const std::vector<op>& h, std::uint32_t put, std::uint32_t take) {
  value_flow f;
  for (std::uint32_t i = 0; i < h.size(); ++i)
    if (h[i].kind == put && h[i].ok && !f.producer.emplace(h[i].arg, i).second) f.unique = false;
  for (std::uint32_t i = 0; i < h.size(); ++i)
    if (h[i].kind == take && h[i].ok) f.consumer.emplace(h[i].ret, i);
  return f;
}

/// Search order for stacks and queues: takes first (a take that applies can
/// only shorten the container), then puts in the order their values come out:
/// FIFO by the consumer's invoke, LIFO by the reverse, never-taken values
/// first (stack bottom) or last (queue back). A guess from the future of the
/// history: concurrent puts are otherwise ordered blindly, and a wrong order
/// only shows when the values come out, far down the search.
inline std::vector<std::uint64_t> flow_priorities(const std::vector<op>& h, std::uint32_t put, std::uint32_t take,
                                                  bool lifo) {
  const value_flow f = flow_of(h, put, take);
  std::vector<std::uint64_t> prio(h.size(), 0);
  for (std::uint32_t i = 0; i < h.size(); ++i) {
    if (h[i].kind != put || !h[i].ok) continue;
    const auto c = f.consumer.find(h[i].arg);
    if (c == f.consumer.end())
      prio[i] = lifo ? 1 : ~std::uint64_t{0};
    else
      prio[i] = lifo ? std::max<std::uint64_t>(2, ~h[c->second].invoke) : 1 + h[c->second].invoke;
  }
  return prio;
}

/// Values that no take returns are never compared with anything, so all of
/// them can become one placeholder value without changing the verdict. That
/// lets the memo merge states that differ only in the order of such values,
/// which otherwise multiply with every set of concurrent puts. The
/// placeholder is 2^64-1 unless some take returns that.
inline std::vector<op> anonymize_untaken(const std::vector<op>& h, std::uint32_t put, std::uint32_t take) {
  const value_flow f = flow_of(h, put, take);
  std::uint64_t placeholder = ~std::uint64_t{0};
  while (f.consumer.count(placeholder)) --placeholder;
  std::vector<op> out = h;
  for (op& o : out)
    if (o.kind == put && !f.consumer.count(o.arg)) o.arg = placeholder;
  return out;
}

/// Sound quick refutation for stacks and queues that start empty and whose
/// successful puts carry distinct values: each pattern below rules out every
/// linearization (after Henzinger et al., "Aspect-oriented linearizability
/// proofs", CONCUR 2013). Returns the reason, or "" when none applies (the
/// full search decides then). `name(i)` describes op i.
template <class Name>
std::string refute_flow(const std::vector<op>& h, std::uint32_t put, std::uint32_t take, bool lifo, Name name) {
  const value_flow f = flow_of(h, put, take);
  if (!f.unique) return "";
  const char* put_s = lifo ? "push" : "enqueue";
  std::unordered_map<std::uint64_t, std::uint32_t> first_take;
  for (std::uint32_t i = 0; i < h.size(); ++i) {
    if (h[i].kind != take || !h[i].ok) continue;
    const auto p = f.producer.find(h[i].ret);
    if (p == f.producer.end())
      return std::string("a value no successful ") + put_s + " put there was taken:\n  " + name(i);
    if (h[i].response < h[p->second].invoke)
      return "a value was taken before it was put:\n  " + name(i) + "\n  " + name(p->second);
    const auto t = first_take.emplace(h[i].ret, i);
    if (!t.second) return "one value was taken twice:\n  " + name(t.first->second) + "\n  " + name(i);
  }
  auto taken_by = [&](std::uint32_t p) -> const op* {
    const auto c = f.consumer.find(h[p].arg);
    return c == f.consumer.end() ? nullptr : &h[c->second];
  };
  auto index = [&](const op* o) { return static_cast<std::uint32_t>(o - h.data()); };
  std::vector<std::uint32_t> puts;
  for (const auto& kv : f.producer) puts.push_back(kv.second);
  std::sort(puts.begin(), puts.end());
  for (std::uint32_t a : puts)
    for (std::uint32_t b : puts) {
      if (!(h[a].response < h[b].invoke)) continue;  // a put wholly before b
      const op *ta = taken_by(a), *tb = taken_by(b);
      if (!lifo && tb && (!ta || tb->response < ta->invoke))
        return "FIFO order broken: put first, taken later (or never):\n  " + name(a) + "\n  " + name(b) + "\n  " +
               name(index(tb)) + (ta ? "\n  " + name(index(ta)) : std::string());
      // Stack: b went on top of a before a's pop started, and was still there
      // when that pop returned.
      if (lifo && ta && h[b].response < ta->invoke && (!tb || ta->response < tb->invoke))
        return "LIFO order broken: popped from under a value pushed later and still there:\n  " + name(a) + "\n  " +
               name(b) + "\n  " + name(index(ta)) + (tb ? "\n  " + name(index(tb)) : std::string());
    }
  for (std::uint32_t d = 0; d < h.size(); ++d) {
    if (h[d].kind != take || h[d].ok) continue;
    for (std::uint32_t p : puts) {
      const op* t = taken_by(p);
      if (h[p].response < h[d].invoke && (!t || t->invoke > h[d].response))
        return "reported empty while holding a value put before and taken after (or never):\n  " + name(d) + "\n  " +
               name(p) + (t ? "\n  " + name(index(t)) : std::string());
    }
  }
  return "";
}

/// Precedences that every stack linearization keeps beyond real time, for a
/// stack that starts empty, where every value is pushed at most once and
/// popped at most once (else none). A linearization gives each value x a
/// lifetime [push(x), pop(x)] (pop at infinity when x is never popped), and is
/// a LIFO execution exactly when no two lifetimes cross and no empty pop lies
/// inside one. So for two values x and z exactly one of four relations holds:
/// x's lifetime before z's, z's before x's, x's inside z's, z's inside x's.
/// Each fixes the order of the four events; it is possible only when the four
/// can be placed in that order inside their ops' real-time windows (a greedy
/// earliest-point pass decides that). When every possible relation puts event
/// a before event b, a precedes b in every linearization. Likewise an empty
/// pop lies before push(x) or after pop(x). Example: a push of z that returns
/// before x's pop is invoked, while z is never popped, must come before
/// push(x): after it, z would land on x and never leave. Pairs already
/// ordered by real time are left out. O(values^2) time.
inline std::vector<std::pair<std::uint32_t, std::uint32_t>> stack_orders(const std::vector<op>& h, std::uint32_t put,
                                                                       std::uint32_t take) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
  const value_flow f = flow_of(h, put, take);
  if (!f.unique) return out;
  constexpr std::uint32_t none = 0xffffffffu;
  std::vector<std::uint32_t> pushes, pops, empties;  // pops[k]: the pop of pushes[k]'s value, or none
  std::size_t taken = 0;
  for (std::uint32_t i = 0; i < h.size(); ++i) {
    if (h[i].kind == take && !h[i].ok) empties.push_back(i);
    taken += h[i].kind == take && h[i].ok;
    if (h[i].kind != put || !h[i].ok) continue;
    pushes.push_back(i);
    const auto c = f.consumer.find(h[i].arg);
    pops.push_back(c == f.consumer.end() ? none : c->second);
  }
  if (taken != f.consumer.size()) return out;  // a value popped twice
  constexpr std::uint64_t never = ~std::uint64_t{0};
  auto lo = [&](std::uint32_t i) { return i == none ? never : h[i].invoke; };
  auto hi = [&](std::uint32_t i) { return i == none ? never : h[i].response; };
  // Can events ev[0..k) take points in this order inside their windows?
  auto fits = [&](const std::uint32_t* ev, int k) {
    std::uint64_t t = 0;
    for (int j = 0; j < k; ++j) {
      t = std::max(t, lo(ev[j]));
      if (t > hi(ev[j])) return false;
    }
    return true;
  };
  auto add = [&](std::uint32_t a, std::uint32_t b) {
    if (a != none && b != none && !(h[a].response < h[b].invoke)) out.emplace_back(a, b);
  };
  // The four relations of x and z as orders of events 0 = push(x), 1 = pop(x),
  // 2 = push(z), 3 = pop(z).
  static constexpr std::uint32_t rel[4][4] = {{0, 1, 2, 3}, {2, 3, 0, 1}, {0, 2, 3, 1}, {2, 0, 1, 3}};
  for (std::size_t x = 0; x < pushes.size(); ++x)
    for (std::size_t z = x + 1; z < pushes.size(); ++z) {
      if (pops[x] == none && pops[z] == none) continue;  // nested either way round
      const std::uint32_t ev[4] = {pushes[x], pops[x], pushes[z], pops[z]};
      int pos[4][4];  // pos[r][e]: place of event e in relation r
      bool possible[4];
      int count = 0;
      for (int r = 0; r < 4; ++r) {
        const std::uint32_t chain[4] = {ev[rel[r][0]], ev[rel[r][1]], ev[rel[r][2]], ev[rel[r][3]]};
        // A lifetime that never ends cannot come before another one.
        possible[r] = fits(chain, 4) && !(r == 0 && pops[x] == none) && !(r == 1 && pops[z] == none);
        count += possible[r];
        for (int k = 0; k < 4; ++k) pos[r][rel[r][k]] = k;
      }
      if (count == 0) continue;  // no relation fits: the search will find no linearization
      for (int a : {0, 1})
        for (int b : {2, 3}) {
          bool a_first = true, b_first = true;
          for (int r = 0; r < 4; ++r)
            if (possible[r]) (pos[r][a] < pos[r][b] ? b_first : a_first) = false;
          if (a_first) add(ev[a], ev[b]);
          if (b_first) add(ev[b], ev[a]);
        }
    }
  for (std::uint32_t u : empties)
    for (std::size_t x = 0; x < pushes.size(); ++x) {
      const std::uint32_t before[2] = {u, pushes[x]}, after[2] = {pops[x], u};
      const bool b = fits(before, 2), a = pops[x] != none && fits(after, 2);
      if (b && !a) add(u, pushes[x]);
      if (a && !b) add(pops[x], u);
    }
  return out;
}

}  // namespace detail

// Fingerprints are sums of hashed (value, position) terms, updated in O(1) per
// op; positions make them order-sensitive.

/// LIFO stack. kind 0 push(arg) -> ok (false only when full, i.e. a capacity is
/// set and size == capacity); kind 1 pop -> ok = false when empty, else ok =
/// true and ret = top. ret is not checked for push, nor for a failed pop.
struct stack_model {
  static constexpr std::uint32_t push = 0, pop = 1;

  stack_model() = default;
  /// capacity 0 = unbounded; initial contents listed bottom to top.
  explicit stack_model(std::size_t capacity, const std::vector<std::uint64_t>& bottom_to_top = {})
      : capacity_(capacity) {
    for (std::uint64_t v : bottom_to_top) do_push(v, no_window);
  }

  bool apply(const op& o) {
    if (o.kind == push || o.kind == push_windowed) {
      const bool full = capacity_ != 0 && items_.size() >= capacity_;
      if (o.ok == full) return false;
      if (full) return true;
      const std::uint64_t w = o.kind == push_windowed ? o.ret : no_window;
      // Pruning (see simplify()): an item below whose pop returns before this
      // value's pop is invoked could never come out.
      if (!floor_.empty() && floor_.back() < (w >> 32)) return false;
      do_push(o.arg, w);
      return true;
    }
    if (o.kind == pop) {
      if (items_.empty()) return !o.ok;
      if (!o.ok || o.ret != items_.back()) return false;
      fp_ -= term(items_.back(), items_.size() - 1);
      items_.pop_back();
      floor_.pop_back();
      return true;
    }
    return false;  // unknown kind: no sequential execution explains it
  }
  std::uint64_t fingerprint() const { return fp_; }
  const std::vector<std::uint64_t>& items() const { return items_; }

  std::vector<std::uint64_t> priorities(const std::vector<op>& h) const {
    return detail::flow_priorities(h, push, pop, true);
  }
  /// Renames values no pop returns (detail::anonymize_untaken), and, when the
  /// stack starts empty and every value is pushed and popped at most once,
  /// tags each push with the real-time window of its value's pop, as ranks of
  /// the pop's invoke (high half) and response (low half; never popped: all
  /// ones). apply() then refuses to push y onto an x whose pop returns before
  /// y's pop is invoked: x would have to leave first but is buried under y.
  /// Wrong orders of concurrent pushes die at once instead of when the stack
  /// unwinds to them.
  std::vector<op> simplify(const std::vector<op>& h) const {
    std::vector<op> out = detail::anonymize_untaken(h, push, pop);
    const detail::value_flow f = detail::flow_of(h, push, pop);
    if (!items_.empty() || !f.unique) return out;
    std::size_t taken = 0;
    for (const op& o : h) taken += o.kind == pop && o.ok;
    if (taken != f.consumer.size()) return out;  // a value popped twice: no windows
    std::vector<std::uint64_t> stamps;
    for (const op& o : h) {
      stamps.push_back(o.invoke);
      stamps.push_back(o.response);
    }
    std::sort(stamps.begin(), stamps.end());
    stamps.erase(std::unique(stamps.begin(), stamps.end()), stamps.end());
    auto rank = [&](std::uint64_t t) {
      return static_cast<std::uint64_t>(std::lower_bound(stamps.begin(), stamps.end(), t) - stamps.begin());
    };
    for (std::size_t i = 0; i < h.size(); ++i) {
      if (h[i].kind != push || !h[i].ok) continue;
      const auto c = f.consumer.find(h[i].arg);
      out[i].kind = push_windowed;
      out[i].ret = c == f.consumer.end() ? ~std::uint64_t{0}
                                         : rank(h[c->second].invoke) << 32 | rank(h[c->second].response);
    }
    return out;
  }
  /// Orders that every linearization keeps beyond real time, when the stack
  /// starts empty and every value is pushed and popped at most once
  /// (detail::stack_orders).
  std::vector<std::pair<std::uint32_t, std::uint32_t>> order(const std::vector<op>& h) const {
    if (!items_.empty()) return {};
    return detail::stack_orders(h, push, pop);
  }
  /// A pop that applies (its value is on top, or the stack is empty) and a
  /// push that found the stack full can move to the front of any linearization
  /// of the rest: ops between leave the part of the stack they see unchanged.
  /// In a bounded stack a successful pop is not decisive: moving it earlier can
  /// make a concurrent "full" answer impossible.
  bool decisive(const op& o) const { return !o.ok || (o.kind == pop && capacity_ == 0); }
  /// Quick sound check; only used when the stack starts empty.
  std::string refute(const std::vector<op>& h) const {
    if (!items_.empty()) return "";
    return detail::refute_flow(h, push, pop, true, [&](std::uint32_t i) { return detail::describe_op(*this, h, i); });
  }

  std::string describe(const op& o) const {
    if (o.kind == push) return "push(" + std::to_string(o.arg) + ") -> " + (o.ok ? "ok" : "full");
    if (o.kind == pop) return std::string("pop() -> ") + (o.ok ? std::to_string(o.ret) : "empty");
    return "unknown kind " + std::to_string(o.kind);
  }
  std::string describe() const {
    std::string s = "stack [bottom";
    for (std::uint64_t v : items_) s += " " + std::to_string(v);
    return s + " top]";
  }

 private:
  static constexpr std::uint32_t push_windowed = 0x80000000u;  // only in simplify()'s output
  static constexpr std::uint64_t no_window = 0xffffffffu;      // pop invoked at rank 0, never returns
  static std::uint64_t term(std::uint64_t v, std::size_t pos) { return detail::mix(detail::mix(v) ^ pos); }
  void do_push(std::uint64_t v, std::uint64_t window) {
    fp_ += term(v, items_.size());
    items_.push_back(v);
    const std::uint32_t r = static_cast<std::uint32_t>(window);
    floor_.push_back(floor_.empty() ? r : std::min(floor_.back(), r));
  }

  std::size_t capacity_ = 0;
  std::vector<std::uint64_t> items_;
  std::vector<std::uint32_t> floor_;  // per item: least pop-response rank at or below it
  std::uint64_t fp_ = 0;
};

/// FIFO queue. kind 0 enqueue(arg) -> ok (false only when full, i.e. a
/// capacity is set and size == capacity); kind 1 dequeue -> ok = false when
/// empty, else ok = true and ret = front. ret is not checked for enqueue, nor
/// for a failed dequeue.
struct queue_model {
  static constexpr std::uint32_t enqueue = 0, dequeue = 1;

  queue_model() = default;
  /// capacity 0 = unbounded; initial contents listed front to back.
  explicit queue_model(std::size_t capacity, const std::vector<std::uint64_t>& front_to_back = {})
      : capacity_(capacity) {
    for (std::uint64_t v : front_to_back) do_enqueue(v);
  }

  bool apply(const op& o) {
    if (o.kind == enqueue) {
      const bool full = capacity_ != 0 && size() >= capacity_;
      if (o.ok == full) return false;
      if (!full) do_enqueue(o.arg);
      return true;
    }
    if (o.kind == dequeue) {
      if (size() == 0) return !o.ok;
      if (!o.ok || o.ret != items_[head_]) return false;
      fp_ -= term(items_[head_], dequeued_);
      ++head_;
      ++dequeued_;
      if (head_ * 2 >= items_.size()) {  // compact: keeps copies of the model small
        items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
        head_ = 0;
      }
      return true;
    }
    return false;
  }
  // Positions are absolute (count of dequeues before the item). Two states
  // reached by the same set of ops have dequeued equally many items, so equal
  // contents give equal fingerprints, as the memo needs.
  std::uint64_t fingerprint() const { return fp_; }
  std::size_t size() const { return items_.size() - head_; }

  std::vector<std::uint64_t> priorities(const std::vector<op>& h) const {
    return detail::flow_priorities(h, enqueue, dequeue, false);
  }
  std::vector<op> simplify(const std::vector<op>& h) const { return detail::anonymize_untaken(h, enqueue, dequeue); }
  /// A dequeue that applies (its value is in front, or the queue is empty) and
  /// a full enqueue can move to the front of any linearization of the rest.
  /// In a bounded queue a successful dequeue is not decisive: moving it earlier
  /// can make a concurrent "full" answer impossible.
  bool decisive(const op& o) const { return !o.ok || (o.kind == dequeue && capacity_ == 0); }
  /// Quick sound check; only used when the queue starts empty.
  std::string refute(const std::vector<op>& h) const {
    if (size() != 0) return "";
    return detail::refute_flow(h, enqueue, dequeue, false,
                               [&](std::uint32_t i) { return detail::describe_op(*this, h, i); });
  }

  std::string describe(const op& o) const {
    if (o.kind == enqueue) return "enqueue(" + std::to_string(o.arg) + ") -> " + (o.ok ? "ok" : "full");
    if (o.kind == dequeue) return std::string("dequeue() -> ") + (o.ok ? std::to_string(o.ret) : "empty");
    return "unknown kind " + std::to_string(o.kind);
  }
  std::string describe() const {
    std::string s = "queue [front";
    for (std::size_t k = head_; k < items_.size(); ++k) s += " " + std::to_string(items_[k]);
    return s + " back]";
  }

 private:
  static std::uint64_t term(std::uint64_t v, std::uint64_t pos) { return detail::mix(detail::mix(v) ^ pos); }
  void do_enqueue(std::uint64_t v) {
    fp_ += term(v, dequeued_ + size());
    items_.push_back(v);
  }

  std::size_t capacity_ = 0;
  std::vector<std::uint64_t> items_;  // [head_, end) is the queue
  std::size_t head_ = 0;
  std::uint64_t dequeued_ = 0;
  std::uint64_t fp_ = 0;
};

/// Set of keys. kind 0 insert(arg) -> ok = added (false: already present);
/// kind 1 remove(arg) -> ok = removed (false: absent); kind 2 contains(arg) ->
/// ok = present. ret is never checked.
struct set_model {
  static constexpr std::uint32_t insert = 0, remove = 1, contains = 2;

  set_model() = default;
  explicit set_model(const std::vector<std::uint64_t>& keys) {
    for (std::uint64_t k : keys) add(k);
  }

  bool apply(const op& o) {
    const auto it = std::lower_bound(keys_.begin(), keys_.end(), o.arg);
    const bool present = it != keys_.end() && *it == o.arg;
    if (o.kind == insert) {
      if (o.ok == present) return false;
      if (!present) {
        keys_.insert(it, o.arg);
        fp_ += detail::mix(o.arg);
      }
      return true;
    }
    if (o.kind == remove) {
      if (o.ok != present) return false;
      if (present) {
        keys_.erase(it);
        fp_ -= detail::mix(o.arg);
      }
      return true;
    }
    if (o.kind == contains) return o.ok == present;
    return false;
  }
  std::uint64_t fingerprint() const { return fp_; }
  const std::vector<std::uint64_t>& keys() const { return keys_; }
  /// Ops that leave the set unchanged (contains, failed insert or remove) can
  /// move to wherever they apply.
  bool decisive(const op& o) const { return o.kind == contains || (o.kind == insert && !o.ok) || (o.kind == remove && !o.ok); }

  std::string describe(const op& o) const {
    const std::string k = "(" + std::to_string(o.arg) + ") -> ";
    if (o.kind == insert) return "insert" + k + (o.ok ? "added" : "present");
    if (o.kind == remove) return "remove" + k + (o.ok ? "removed" : "absent");
    if (o.kind == contains) return "contains" + k + (o.ok ? "true" : "false");
    return "unknown kind " + std::to_string(o.kind);
  }
  std::string describe() const {
    std::string s = "set {";
    for (std::size_t k = 0; k < keys_.size(); ++k) s += (k ? " " : "") + std::to_string(keys_[k]);
    return s + "}";
  }

 private:
  void add(std::uint64_t k) {
    const auto it = std::lower_bound(keys_.begin(), keys_.end(), k);
    if (it != keys_.end() && *it == k) return;
    keys_.insert(it, k);
    fp_ += detail::mix(k);
  }

  std::vector<std::uint64_t> keys_;  // sorted
  std::uint64_t fp_ = 0;
};

}  // namespace stm_test::lin
