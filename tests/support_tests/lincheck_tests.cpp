// Tests of the linearizability checker (tests/support/lincheck.hpp), CPU only:
// hand-written histories per model, randomized histories built from a real
// sequential execution (must pass) and then corrupted (must mostly fail), and
// a recording from real std::threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <iostream>
#include <mutex>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "stm/launch.hpp"
#include "support/lincheck.hpp"

namespace {

namespace lin = stm_test::lin;
using lin::op;
using lin::queue_model;
using lin::set_model;
using lin::stack_model;

op mk(std::uint32_t thread, std::uint32_t kind, std::uint64_t arg, std::uint64_t ret, bool ok, std::uint64_t inv,
      std::uint64_t resp) {
  op o;
  o.thread = thread;
  o.kind = kind;
  o.arg = arg;
  o.ret = ret;
  o.ok = ok;
  o.invoke = inv;
  o.response = resp;
  return o;
}
op push(std::uint32_t t, std::uint64_t v, std::uint64_t inv, std::uint64_t resp, bool ok = true) {
  return mk(t, stack_model::push, v, 0, ok, inv, resp);
}
op pop(std::uint32_t t, std::uint64_t v, std::uint64_t inv, std::uint64_t resp) {
  return mk(t, stack_model::pop, 0, v, true, inv, resp);
}
op pop_empty(std::uint32_t t, std::uint64_t inv, std::uint64_t resp) {
  return mk(t, stack_model::pop, 0, 0, false, inv, resp);
}
op enq(std::uint32_t t, std::uint64_t v, std::uint64_t inv, std::uint64_t resp) {
  return mk(t, queue_model::enqueue, v, 0, true, inv, resp);
}
op deq(std::uint32_t t, std::uint64_t v, std::uint64_t inv, std::uint64_t resp) {
  return mk(t, queue_model::dequeue, 0, v, true, inv, resp);
}
op deq_empty(std::uint32_t t, std::uint64_t inv, std::uint64_t resp) {
  return mk(t, queue_model::dequeue, 0, 0, false, inv, resp);
}
op set_op(std::uint32_t t, std::uint32_t kind, std::uint64_t key, bool ok, std::uint64_t inv, std::uint64_t resp) {
  return mk(t, kind, key, 0, ok, inv, resp);
}

template <class Model>
void expect_lin(const std::vector<op>& h, const Model& m) {
  const auto r = lin::check(h, m);
  EXPECT_TRUE(r.linearizable) << r.explanation;
  EXPECT_TRUE(r.explanation.empty());
}
template <class Model>
lin::result expect_not_lin(const std::vector<op>& h, const Model& m) {
  auto r = lin::check(h, m);
  EXPECT_FALSE(r.linearizable);
  EXPECT_FALSE(lin::hit_search_limit(r)) << r.explanation;
  EXPECT_NE(r.explanation.find("not linearizable"), std::string::npos) << r.explanation;
  return r;
}

// The same model without its quick refutation: exercises the search alone.
template <class M>
struct search_only {
  M m;
  bool apply(const op& o) { return m.apply(o); }
  std::uint64_t fingerprint() const { return m.fingerprint(); }
  std::vector<std::uint64_t> priorities(const std::vector<op>& h) const { return m.priorities(h); }
  std::string describe(const op& o) const { return m.describe(o); }
  std::string describe() const { return m.describe(); }
  std::vector<op> simplify(const std::vector<op>& h) const { return m.simplify(h); }
  bool decisive(const op& o) const { return m.decisive(o); }
};

// Stacks and queues: both the quick check and the search must refute h.
// Returns the search's explanation.
template <class Model>
std::string expect_refuted(const std::vector<op>& h, const Model& m, const std::string& pattern) {
  const auto quick = expect_not_lin(h, m);
  EXPECT_EQ(quick.states_explored, 0u) << "expected the quick check to refute it: " << quick.explanation;
  EXPECT_NE(quick.explanation.find(pattern), std::string::npos) << quick.explanation;
  return expect_not_lin(h, search_only<Model>{m}).explanation;
}

// --- generic ----------------------------------------------------------------
TEST(LinCheck, EmptyHistoryIsLinearizable) {
  const auto r = lin::check({}, stack_model{});
  EXPECT_TRUE(r.linearizable);
  EXPECT_EQ(r.states_explored, 0u);
}

TEST(LinCheck, MalformedHistoriesAreRejectedWithTheReason) {
  auto r = lin::check({push(0, 1, 5, 5)}, stack_model{});
  EXPECT_FALSE(r.linearizable);
  EXPECT_NE(r.explanation.find("invoke >= response"), std::string::npos) << r.explanation;
  r = lin::check({push(0, 1, 0, 4), pop(0, 1, 3, 6)}, stack_model{});  // one thread, overlapping
  EXPECT_FALSE(r.linearizable);
  EXPECT_NE(r.explanation.find("two ops of one thread overlap"), std::string::npos) << r.explanation;
}

TEST(LinCheck, SearchLimitIsReportedAsUndecided) {
  // 8 concurrent pushes, then a pop of a value never pushed: without the
  // quick check, refuting it means trying every order of the pushes (about
  // e * 8! states), far more than 50.
  std::vector<op> h;
  for (std::uint32_t t = 0; t < 8; ++t) h.push_back(push(t, t + 1, t, 100 + t));
  h.push_back(pop(8, 999, 200, 201));
  const search_only<stack_model> model{};
  const auto r = lin::check(h, model, 50);
  EXPECT_FALSE(r.linearizable);
  EXPECT_TRUE(lin::hit_search_limit(r)) << r.explanation;
  EXPECT_EQ(r.explanation.rfind("search limit reached", 0), 0u);
  EXPECT_EQ(r.states_explored, 50u);
  EXPECT_NE(r.explanation.find("Longest linearizable prefix found"), std::string::npos) << r.explanation;
  // With room, the same history is refuted for good.
  const auto full = lin::check(h, model);
  EXPECT_FALSE(full.linearizable);
  EXPECT_FALSE(lin::hit_search_limit(full));
}

// A user model with no fingerprint and no describe: no memo, generic text.
struct register_model {
  std::uint64_t value = 0;
  bool apply(const op& o) {
    if (o.kind == 0) {
      value = o.arg;
      return true;
    }
    return o.kind == 1 && o.ret == value;
  }
};

TEST(LinCheck, UserModelWithoutFingerprint) {
  // write(1) || write(2), then read 1: write(2) must come first.
  std::vector<op> h = {mk(0, 0, 1, 0, true, 0, 10), mk(1, 0, 2, 0, true, 1, 11), mk(2, 1, 0, 1, true, 12, 13)};
  expect_lin(h, register_model{});
  h.push_back(mk(2, 1, 0, 2, true, 14, 15));  // reads 2 after 1: no order explains both
  const auto r = expect_not_lin(h, register_model{});
  EXPECT_NE(r.explanation.find("kind 1 arg 0 -> ok 1 ret 2"), std::string::npos) << r.explanation;
}

// --- stack ------------------------------------------------------------------
TEST(LinCheckStack, SequentialHistory) {
  expect_lin({push(0, 1, 0, 1), push(0, 2, 2, 3), pop(0, 2, 4, 5), pop(0, 1, 6, 7), pop_empty(0, 8, 9)},
             stack_model{});
}

TEST(LinCheckStack, OverlappingPushesOnlyOneOrderWorks) {
  // push(1) and push(2) overlap; later pops see 1 then 2, so push(2) went first.
  expect_lin({push(0, 1, 0, 10), push(1, 2, 1, 11), pop(2, 1, 12, 13), pop(2, 2, 14, 15)}, stack_model{});
  // The same results with the pushes in sequence are wrong.
  const auto why = expect_refuted({push(0, 1, 0, 1), push(1, 2, 2, 3), pop(2, 1, 4, 5)}, stack_model{}, "LIFO");
  // The search refuses push(2) on top of 1: 1's pop returns before any pop of 2.
  EXPECT_NE(why.find("#1 t1 push(2) -> ok [2, 3]"), std::string::npos) << why;
  EXPECT_NE(why.find("State after it: stack [bottom 1 top]"), std::string::npos) << why;
}

TEST(LinCheckStack, PopOfAValueNeverPushed) {
  const auto why =
      expect_refuted({push(0, 1, 0, 3), push(1, 2, 1, 4), pop(2, 7, 2, 5)}, stack_model{}, "no successful push");
  EXPECT_NE(why.find("#2 t2 pop() -> 7 [2, 5]"), std::string::npos) << why;
  EXPECT_NE(why.find("Longest linearizable prefix found: 2 of 3"), std::string::npos) << why;
}

TEST(LinCheckStack, EmptyPopAgainstACompletedPush) {
  expect_refuted({push(0, 1, 0, 1), pop_empty(1, 2, 3)}, stack_model{}, "reported empty");
  expect_lin({push(0, 1, 0, 3), pop_empty(1, 1, 2)}, stack_model{});  // overlapping: pop first
}

TEST(LinCheckStack, ValuePoppedTwice) {
  expect_refuted({push(0, 1, 0, 1), pop(1, 1, 2, 5), pop(2, 1, 3, 6)}, stack_model{}, "taken twice");
  expect_refuted({pop(1, 1, 0, 1), push(0, 1, 2, 3)}, stack_model{}, "taken before it was put");
}

TEST(LinCheckStack, CapacityAndInitialContents) {
  // Bounded at 2, holding {5}: one push fits, the next reports full.
  expect_lin({push(0, 1, 0, 1), push(0, 2, 2, 3, false), pop(1, 1, 4, 5), pop(1, 5, 6, 7)}, stack_model(2, {5}));
  expect_not_lin({push(0, 1, 0, 1), push(0, 2, 2, 3, false)}, stack_model{});     // unbounded: never full
  expect_not_lin({push(0, 1, 0, 1, false)}, stack_model(2, {5}));                 // full with room left
}

// --- queue ------------------------------------------------------------------
TEST(LinCheckQueue, FifoViolationBetweenNonOverlappingOps) {
  const auto why = expect_refuted({enq(0, 1, 0, 1), enq(0, 2, 2, 3), deq(1, 2, 4, 5)}, queue_model{}, "FIFO");
  EXPECT_NE(why.find("queue [front 1 2 back]"), std::string::npos) << why;
  EXPECT_NE(why.find("dequeue() -> 2 [4, 5]"), std::string::npos) << why;
  expect_lin({enq(0, 1, 0, 3), enq(1, 2, 1, 4), deq(2, 2, 5, 6), deq(2, 1, 7, 8)}, queue_model{});
}

TEST(LinCheckQueue, DequeueBeforeItsEnqueueStarted) {
  expect_refuted({deq(1, 4, 0, 1), enq(0, 4, 2, 3)}, queue_model{}, "taken before it was put");
  expect_lin({deq(1, 4, 0, 3), enq(0, 4, 1, 2)}, queue_model{});
}

TEST(LinCheckQueue, EmptyDequeue) {
  expect_lin({enq(0, 1, 0, 5), deq_empty(1, 1, 2), deq(1, 1, 6, 7)}, queue_model{});
  expect_refuted({enq(0, 1, 0, 1), deq_empty(1, 2, 3)}, queue_model{}, "reported empty");
  expect_lin({deq(0, 9, 0, 1), deq_empty(0, 2, 3)}, queue_model(0, {9}));
}

TEST(LinCheckQueue, OnlyOneInterleavingOfThreeOverlappingEnqueues) {
  // Three overlapping enqueues, dequeued 3, 1, 2 afterwards.
  expect_lin({enq(0, 1, 0, 10), enq(1, 2, 1, 11), enq(2, 3, 2, 12), deq(3, 3, 13, 14), deq(3, 1, 15, 16),
              deq(3, 2, 17, 18)},
             queue_model{});
  // enqueue(3) starts after enqueue(1) returned: 3 cannot come out first.
  expect_refuted({enq(0, 1, 0, 2), enq(1, 2, 1, 11), enq(2, 3, 3, 12), deq(3, 3, 13, 14)}, queue_model{}, "FIFO");
  // No single value is there all through the empty dequeue, so no quick-check
  // pattern fires, but 1, 2 and 3 together keep the queue non-empty from 1 on:
  // the search has to decide it.
  const auto r = lin::check(
      {enq(0, 1, 0, 1), enq(0, 2, 3, 4), enq(0, 3, 5, 6), deq(1, 1, 5, 6), deq(1, 2, 7, 8), deq_empty(2, 2, 9)},
      queue_model{});
  EXPECT_FALSE(r.linearizable);
  EXPECT_GT(r.states_explored, 0u) << r.explanation;
}

// --- set --------------------------------------------------------------------
TEST(LinCheckSet, ContainsContradictsACompletedInsert) {
  const auto r = expect_not_lin(
      {set_op(0, set_model::insert, 5, true, 0, 1), set_op(1, set_model::contains, 5, false, 2, 3)}, set_model{});
  EXPECT_NE(r.explanation.find("contains(5) -> false"), std::string::npos) << r.explanation;
  expect_lin({set_op(0, set_model::insert, 5, true, 0, 3), set_op(1, set_model::contains, 5, false, 1, 2)},
             set_model{});
}

TEST(LinCheckSet, DoubleInsertNeedsARemoveBetween) {
  expect_not_lin({set_op(0, set_model::insert, 3, true, 0, 1), set_op(1, set_model::insert, 3, true, 2, 3)},
                 set_model{});
  expect_lin({set_op(0, set_model::insert, 3, true, 0, 1), set_op(2, set_model::remove, 3, true, 2, 7),
              set_op(1, set_model::insert, 3, true, 3, 4), set_op(1, set_model::contains, 3, true, 8, 9)},
             set_model{});
}

TEST(LinCheckSet, InitialKeysAndFailedOps) {
  expect_lin({set_op(0, set_model::insert, 1, false, 0, 1), set_op(0, set_model::remove, 2, false, 2, 3),
              set_op(0, set_model::remove, 1, true, 4, 5), set_op(0, set_model::contains, 1, false, 6, 7)},
             set_model({1}));
  expect_not_lin({set_op(0, set_model::remove, 4, true, 0, 1)}, set_model({1}));
}

// --- randomized -----------------------------------------------------------
// Run a real sequential execution of random ops while threads invoke and
// respond at random moments around each op's linearization point: the result
// is linearizable by construction, with real overlap.
enum class kind_of { stack, queue, set };

struct truth {
  kind_of k;
  std::vector<std::uint64_t> seq;  // stack or queue contents
  std::size_t head = 0;            // queue front
  std::set<std::uint64_t> keys;
  std::uint64_t next_value = 1;

  void choose(op& o, std::mt19937_64& rng) {
    if (k == kind_of::set) {
      o.kind = static_cast<std::uint32_t>(rng() % 3);
      o.arg = rng() % 6;  // few keys: many conflicts
    } else {
      o.kind = rng() % 2;  // push/enqueue or pop/dequeue
      if (o.kind == 0) o.arg = next_value++;  // unique values
    }
  }
  void execute(op& o) {
    if (k == kind_of::set) {
      const bool present = keys.count(o.arg) != 0;
      if (o.kind == set_model::insert) keys.insert(o.arg);
      if (o.kind == set_model::remove) keys.erase(o.arg);
      o.ok = o.kind == set_model::insert ? !present : present;
      return;
    }
    if (o.kind == 0) {
      seq.push_back(o.arg);
      o.ok = true;
      return;
    }
    o.ok = seq.size() > head;
    if (!o.ok) return;
    if (k == kind_of::stack) {
      o.ret = seq.back();
      seq.pop_back();
    } else {
      o.ret = seq[head++];
    }
  }
};

std::vector<op> random_history(kind_of k, std::uint32_t threads, std::uint32_t ops, std::mt19937_64& rng) {
  enum phase { idle, invoked, done };
  std::vector<phase> ph(threads, idle);
  std::vector<op> cur(threads), h;
  truth real{k, {}, 0, {}, 1};
  std::uint64_t clock = 0;
  std::uint32_t started = 0;
  while (h.size() < ops) {
    const std::uint32_t t = rng() % threads;
    switch (ph[t]) {
      case idle:
        if (started == ops) break;
        ++started;
        cur[t] = op{};
        cur[t].thread = t;
        real.choose(cur[t], rng);
        cur[t].invoke = clock++;
        ph[t] = invoked;
        break;
      case invoked:  // the linearization point
        real.execute(cur[t]);
        ph[t] = done;
        break;
      case done:
        cur[t].response = clock++;
        h.push_back(cur[t]);
        ph[t] = idle;
        break;
    }
  }
  std::shuffle(h.begin(), h.end(), rng);  // the checker must not rely on input order
  return h;
}

// Change one result of the history.
void corrupt(kind_of k, std::vector<op>& h, std::mt19937_64& rng) {
  for (;;) {
    op& o = h[rng() % h.size()];
    if (k == kind_of::set) {
      o.ok = !o.ok;
      return;
    }
    if (o.kind == 0) continue;  // pushes and enqueues of an unbounded container only say "ok"
    if (!o.ok || rng() % 3 == 0) {
      o.ok = !o.ok;  // a pop that found nothing now returns something, or the reverse
      if (o.ok) o.ret = h[rng() % h.size()].arg;
      return;
    }
    // Another value: one pushed somewhere in the history (0 = never pushed).
    const std::uint64_t v = h[rng() % h.size()].arg;
    if (v == o.ret) continue;
    o.ret = v;
    return;
  }
}

template <class Model>
void randomized(kind_of k, const Model& model, double min_detected) {
  std::mt19937_64 rng(20240611u + static_cast<unsigned>(k));
  std::uint64_t max_states = 0;
  int trials = 0, detected = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (std::uint32_t threads : {4u, 8u, 16u}) {
    for (std::uint32_t ops : {64u, 128u, 200u}) {
      for (int rep = 0; rep < 25; ++rep) {
        auto h = random_history(k, threads, ops, rng);
        const auto good = lin::check(h, model);
        ASSERT_TRUE(good.linearizable) << threads << " threads, " << ops << " ops: " << good.explanation;
        max_states = std::max(max_states, good.states_explored);
        corrupt(k, h, rng);
        const auto bad = lin::check(h, model);
        ASSERT_FALSE(lin::hit_search_limit(bad)) << bad.explanation;
        max_states = std::max(max_states, bad.states_explored);
        ++trials;
        detected += bad.linearizable ? 0 : 1;
      }
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "[ info     ] " << 2 * trials << " checks in " << secs << " s; most states in one check: " << max_states
            << "; corruptions detected: " << detected << "/" << trials << "\n";
  EXPECT_GE(detected, static_cast<int>(min_detected * trials));
}

TEST(LinCheckRandom, Stack) { randomized(kind_of::stack, stack_model{}, 0.8); }
TEST(LinCheckRandom, Queue) { randomized(kind_of::queue, queue_model{}, 0.8); }
TEST(LinCheckRandom, Set) { randomized(kind_of::set, set_model{}, 0.6); }

// The models' shortcuts (quick refutation, simplify, decisive ops, priorities)
// must never change a verdict: compare with the bare search on small histories.
template <class M>
struct bare {
  M m;
  bool apply(const op& o) { return m.apply(o); }
  std::uint64_t fingerprint() const { return m.fingerprint(); }
};

template <class Model>
void same_verdict_as_bare_search(kind_of k, const Model& model) {
  std::mt19937_64 rng(777u + static_cast<unsigned>(k));
  int bad = 0;
  for (int rep = 0; rep < 300; ++rep) {
    auto h = random_history(k, 2 + rep % 4, 12 + rep % 13, rng);
    if (rep % 3 != 0) corrupt(k, h, rng);
    const auto fast = lin::check(h, model);
    const auto slow = lin::check(h, bare<Model>{model});
    ASSERT_FALSE(lin::hit_search_limit(slow));
    ASSERT_EQ(fast.linearizable, slow.linearizable) << "fast: " << fast.explanation << "\nbare: " << slow.explanation;
    bad += slow.linearizable ? 0 : 1;
  }
  EXPECT_GT(bad, 100);  // both verdicts were exercised
}

TEST(LinCheckRandom, ShortcutsKeepTheVerdictStack) { same_verdict_as_bare_search(kind_of::stack, stack_model{}); }
TEST(LinCheckRandom, ShortcutsKeepTheVerdictQueue) { same_verdict_as_bare_search(kind_of::queue, queue_model{}); }
TEST(LinCheckRandom, ShortcutsKeepTheVerdictSet) { same_verdict_as_bare_search(kind_of::set, set_model{}); }

// --- recording from real threads ---------------------------------------------
// A mutex-protected std::deque used as a stack, a queue, and a std::set as a
// set: linearizable by construction, recorded through recorder_ref.
template <class Model, class Body>
void record_threads(const Model& model, std::uint32_t threads, std::uint32_t per_thread, Body body) {
  lin::recorder rec(stm::backend::cpu, threads * per_thread);
  const lin::recorder_ref r = rec.ref();
  std::vector<std::thread> pool;
  for (std::uint32_t t = 0; t < threads; ++t)
    pool.emplace_back([=] {
      std::mt19937_64 rng(t * 7919u + 1);
      for (std::uint32_t i = 0; i < per_thread; ++i) {
        op o;
        o.thread = t;
        o.arg = std::uint64_t{t} * 1000 + i + 1;  // unique values
        body(o, rng, r);
        r.record(o);
      }
    });
  for (auto& th : pool) th.join();
  const auto h = rec.history();
  ASSERT_EQ(h.size(), threads * per_thread);
  const auto res = lin::check(h, model);
  EXPECT_TRUE(res.linearizable) << res.explanation;
}

TEST(LinCheckRecorder, MutexDequeAsStackAndQueue) {
  std::mutex m;
  std::deque<std::uint64_t> d;
  for (bool lifo : {true, false}) {
    d.clear();
    auto body = [&](op& o, std::mt19937_64& rng, const lin::recorder_ref& r) {
      o.kind = rng() % 2;
      o.invoke = r.now();
      {
        std::lock_guard<std::mutex> g(m);
        if (o.kind == 0) {
          d.push_back(o.arg);
          o.ok = true;
        } else if (!d.empty()) {
          o.ok = true;
          o.ret = lifo ? d.back() : d.front();
          if (lifo) d.pop_back(); else d.pop_front();
        }
      }
      o.response = r.now();
    };
    if (lifo)
      record_threads(stack_model{}, 8, 25, body);
    else
      record_threads(queue_model{}, 8, 25, body);
  }
}

TEST(LinCheckRecorder, MutexSet) {
  std::mutex m;
  std::set<std::uint64_t> s;
  record_threads(set_model{}, 16, 12, [&](op& o, std::mt19937_64& rng, const lin::recorder_ref& r) {
    o.kind = static_cast<std::uint32_t>(rng() % 3);
    o.arg = rng() % 8;
    o.invoke = r.now();
    {
      std::lock_guard<std::mutex> g(m);
      if (o.kind == set_model::insert) o.ok = s.insert(o.arg).second;
      if (o.kind == set_model::remove) o.ok = s.erase(o.arg) != 0;
      if (o.kind == set_model::contains) o.ok = s.count(o.arg) != 0;
    }
    o.response = r.now();
  });
}

TEST(LinCheckRecorder, OverflowIsVisible) {
  lin::recorder rec(stm::backend::cpu, 2);
  const auto r = rec.ref();
  for (int i = 0; i < 3; ++i) {
    op o;
    o.invoke = r.now();
    o.response = r.now();
    r.record(o);
  }
  EXPECT_EQ(rec.recorded(), 3u);
  EXPECT_TRUE(rec.overflowed());
  EXPECT_THROW(rec.history(), stm::usage_error);
}

// --- batches -------------------------------------------------------------------

TEST(LinCheckBatch, LayoutAlignsInstancesToWarpsOnTheGpuOnly) {
  const auto g = lin::layout(stm::backend::gpu, 3, 16);
  EXPECT_EQ(g.span, 32u);
  EXPECT_EQ(g.threads(), 96u);
  EXPECT_EQ(g.instance(47), 1u);
  EXPECT_EQ(g.lane(47), 15u);
  EXPECT_TRUE(g.active(47));
  EXPECT_FALSE(g.active(48));  // lanes 16..31 of each warp stay idle
  EXPECT_EQ(lin::layout(stm::backend::gpu, 2, 128).span, 128u);
  EXPECT_EQ(lin::layout(stm::backend::gpu, 2, 33).span, 64u);
  const auto c = lin::layout(stm::backend::cpu, 3, 16);
  EXPECT_EQ(c.span, 16u);
  EXPECT_EQ(c.threads(), 48u);
  EXPECT_EQ(c.instance(47), 2u);
  EXPECT_TRUE(c.active(47));
  EXPECT_THROW(lin::layout(stm::backend::cpu, 0, 4), stm::usage_error);
  EXPECT_THROW(lin::layout(stm::backend::gpu, 1u << 28, 32), stm::usage_error);
}

// Each instance of a batch keeps its own ops, count and clock: histories of
// different sizes recorded at once by interleaved threads come back apart.
TEST(LinCheckBatch, InstancesRecordIndependentHistories) {
  constexpr std::uint32_t instances = 5, cap = 40;
  lin::batch_recorder rec(stm::backend::cpu, instances, cap);
  const auto br = rec.ref();
  stm::launch_cpu(instances * 4, [=](std::uint32_t t) {
    const std::uint32_t i = t / 4, tid = t % 4;
    const auto r = br.at(i);
    for (std::uint32_t j = 0; j <= i; ++j) {  // instance i records 4 (i + 1) ops
      op o;
      o.thread = tid;
      o.arg = i;
      o.invoke = r.now();
      o.response = r.now();
      r.record(o);
    }
  });
  const auto hs = rec.histories();
  ASSERT_EQ(hs.size(), instances);
  for (std::uint32_t i = 0; i < instances; ++i) {
    ASSERT_EQ(hs[i].size(), 4u * (i + 1)) << "instance " << i;
    std::uint64_t last = 0;
    for (const auto& o : hs[i]) {
      EXPECT_EQ(o.arg, i);
      last = std::max(last, o.response);
    }
    EXPECT_EQ(last + 1, 8u * (i + 1)) << "instance " << i << " has a clock of its own";
  }
}

TEST(LinCheckBatch, OverflowOfOneInstanceIsNamed) {
  lin::batch_recorder rec(stm::backend::cpu, 3, 2);
  const auto r = rec.ref().at(1);
  for (int i = 0; i < 3; ++i) {
    op o;
    o.invoke = r.now();
    o.response = r.now();
    r.record(o);
  }
  try {
    rec.histories();
    FAIL() << "an overflow went unseen";
  } catch (const stm::usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("instance 1 recorded 3 ops"), std::string::npos) << e.what();
  }
}

TEST(LinCheckBatch, CheckEachVisitsEveryInstanceOnceAndKeepsFailures) {
  constexpr std::uint32_t n = 1000;
  std::vector<std::atomic<int>> seen(n);
  const auto why = lin::check_each(n, [&](std::uint32_t i) -> std::string {
    seen[i].fetch_add(1);
    if (i == 17) throw std::runtime_error("boom");
    return i % 100 == 3 ? "bad " + std::to_string(i) : "";
  });
  ASSERT_EQ(why.size(), n);
  for (std::uint32_t i = 0; i < n; ++i) {
    EXPECT_EQ(seen[i].load(), 1) << i;
    if (i == 17) EXPECT_EQ(why[i], "exception: boom");
    else EXPECT_EQ(why[i], i % 100 == 3 ? "bad " + std::to_string(i) : "") << i;
  }
  // A real check per instance: one broken stack history among good ones.
  std::vector<std::vector<op>> hs(8, {mk(0, 0, 1, 0, true, 0, 1), mk(0, 1, 0, 1, true, 2, 3)});
  hs[5][1].ret = 2;  // popped a value never pushed
  const auto verdicts = lin::check_each(8, [&](std::uint32_t i) {
    const auto r = lin::check(hs[i], stack_model{});
    return r.linearizable ? std::string() : r.explanation;
  });
  for (std::uint32_t i = 0; i < 8; ++i) EXPECT_EQ(verdicts[i].empty(), i != 5) << i;
}

}  // namespace
