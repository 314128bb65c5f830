// SPDX-License-Identifier: Apache-2.0
// Tests of the linearizability checker (tests/support/lincheck.hpp), CPU only:
// hand-written histories per model, randomized histories built from a real
// sequential execution (must pass) and then corrupted (must mostly fail), and
// a recording from real std::threads.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <iostream>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "stm/launch.hpp"
#include "support/lincheck.hpp"
#include "support/reliability.hpp"
#include "support/scoped_env.hpp"

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

// --- wide stack histories -----------------------------------------------------
// The shape of the stack tests' GPU histories under schedule perturbation:
// `prefill` pushes by one thread first, then `threads` threads of `per` ops
// each (push or pop at random, unique values), every op stretched by random
// delays so that nearly all of them overlap. Each op takes effect at a random
// point of its window on a real stack, so the history is linearizable. Times
// are integers; stamps are their ranks, invokes before responses at equal
// times (equal times overlap, never order two ops wrongly).
std::vector<op> wide_stack_history(std::mt19937_64& rng, std::uint32_t threads, std::uint32_t per,
                                   std::uint32_t prefill, std::uint64_t delay = 1000) {
  std::vector<op> h;
  std::vector<std::uint64_t> at, inv, resp;  // at: when the op takes effect
  std::uint64_t t = 0;
  for (std::uint32_t i = 0; i < prefill; ++i, t += 2) {
    h.push_back(push(1000000u, 1000000u + i, 0, 0));
    inv.push_back(t);
    at.push_back(t);
    resp.push_back(t + 1);
  }
  for (std::uint32_t tid = 0; tid < threads; ++tid) {
    std::uint64_t c = t + rng() % 2;
    for (std::uint32_t i = 0; i < per; ++i) {
      const bool is_push = rng() & 1;
      h.push_back(is_push ? push(tid, tid * per + i + 1, 0, 0) : pop_empty(tid, 0, 0));
      inv.push_back(c + rng() % (delay / 10 + 1));
      at.push_back(inv.back() + rng() % (delay + 1));
      resp.push_back(at.back() + rng() % (delay + 1));
      c = resp.back() + 1 + rng() % (delay / 10 + 1);
    }
  }
  std::vector<std::uint32_t> by(h.size());
  for (std::uint32_t i = 0; i < by.size(); ++i) by[i] = i;
  std::sort(by.begin(), by.end(), [&](std::uint32_t a, std::uint32_t b) { return at[a] != at[b] ? at[a] < at[b] : a < b; });
  std::vector<std::uint64_t> stack;
  for (std::uint32_t i : by) {
    op& o = h[i];
    if (o.kind == stack_model::push) {
      stack.push_back(o.arg);
    } else if (!stack.empty()) {
      o.ok = true;
      o.ret = stack.back();
      stack.pop_back();
    }
  }
  struct event {
    std::uint64_t time;
    std::uint32_t is_response, op;
  };
  std::vector<event> ev;
  for (std::uint32_t i = 0; i < h.size(); ++i) {
    ev.push_back({inv[i], 0, i});
    ev.push_back({resp[i], 1, i});
  }
  std::sort(ev.begin(), ev.end(), [](const event& a, const event& b) {
    return a.time != b.time ? a.time < b.time : a.is_response != b.is_response ? a.is_response < b.is_response : a.op < b.op;
  });
  for (std::uint32_t k = 0; k < ev.size(); ++k) (ev[k].is_response ? h[ev[k].op].response : h[ev[k].op].invoke) = k;
  std::shuffle(h.begin(), h.end(), rng);
  return h;
}

// Make one op's window narrower (a sub-window of its own, so its thread's ops
// still do not overlap): real-time orders appear that the results may break.
void narrow(std::vector<op>& h, std::mt19937_64& rng) {
  if (std::none_of(h.begin(), h.end(), [](const op& o) { return o.response - o.invoke >= 2; })) return;
  for (;;) {
    op& o = h[rng() % h.size()];
    const std::uint64_t len = o.response - o.invoke;
    if (len < 2) continue;
    const std::uint64_t a = o.invoke + rng() % len;
    o.response = a + 1 + rng() % (o.response - a);
    o.invoke = a;
    return;
  }
}

// 16 threads x 3 ops after 4 prefill pushes, nearly all overlapping: the
// shape that once left the search undecided after 5 * 10^7 states, where a
// wrong order of overlapping pushes showed only when the values came out
// (without the stack's lifetime orders about 1 in 600 of these histories
// needs more than 10^7 states). Every such history must be decided within
// 10^7, and so must corrupted ones (results or windows changed).
TEST(LinCheckRandom, WideStackHistoriesAreDecidedQuickly) {
  constexpr std::uint64_t limit = 10'000'000;
  std::mt19937_64 rng(33);
  std::uint64_t most = 0, total = 0;
  int detected = 0;
  constexpr int histories = 1500;
  const auto t0 = std::chrono::steady_clock::now();
  for (int rep = 0; rep < histories; ++rep) {
    auto h = wide_stack_history(rng, 16, 3, 4);
    const auto good = lin::check(h, stack_model{}, limit);
    ASSERT_TRUE(good.linearizable) << "history " << rep << ": " << good.explanation;
    most = std::max(most, good.states_explored);
    total += good.states_explored;
    if (rep % 2) corrupt(kind_of::stack, h, rng);
    else narrow(h, rng);
    const auto bad = lin::check(h, stack_model{}, limit);
    ASSERT_FALSE(lin::hit_search_limit(bad)) << "corrupted history " << rep << ": " << bad.explanation;
    detected += bad.linearizable ? 0 : 1;
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "[ info     ] " << histories << " wide histories (+ as many corrupted) in " << secs
            << " s; states per linearizable one: mean " << total / histories << ", most " << most
            << "; corruptions detected: " << detected << "/" << histories << "\n";
  EXPECT_GE(detected, histories * 2 / 5);  // a narrowed window often leaves a linearization
}

// The stack model's shortcuts, the lifetime orders (order()) included, on
// small histories of the wide shape (prefill, empty pops, long overlaps),
// good and broken, against the bare search.
TEST(LinCheckRandom, ShortcutsKeepTheVerdictOnWideStackHistories) {
  std::mt19937_64 rng(3303);
  int bad = 0;
  for (int rep = 0; rep < 3000; ++rep) {
    auto h = wide_stack_history(rng, 2 + rep % 3, 2 + rep % 2, rep % 3, 20 + rep % 200);
    const bool pops = std::any_of(h.begin(), h.end(), [](const op& o) { return o.kind == stack_model::pop; });
    if (rep % 4 == 1 && pops) corrupt(kind_of::stack, h, rng);  // corrupt() changes a pop's result
    if (rep % 4 == 2) narrow(h, rng);
    if (rep % 4 == 3) {
      narrow(h, rng);
      narrow(h, rng);
    }
    const auto fast = lin::check(h, stack_model{});
    const auto slow = lin::check(h, bare<stack_model>{stack_model{}});
    ASSERT_FALSE(lin::hit_search_limit(slow));
    ASSERT_EQ(fast.linearizable, slow.linearizable) << "history " << rep << "\nfast: " << fast.explanation
                                                    << "\nbare: " << slow.explanation;
    bad += slow.linearizable ? 0 : 1;
  }
  EXPECT_GT(bad, 500);  // both verdicts were exercised
}

// The lifetime orders themselves: overlapping pushes whose pops fix the order.
TEST(LinCheckStack, LifetimeOrders) {
  // push(1) and push(2) overlap; 2 is never popped and push(2) returns before
  // pop(1) starts, so 2 went on first (else it would sit on 1 for ever).
  const std::vector<op> h = {push(0, 1, 0, 10), push(1, 2, 1, 5), pop(2, 1, 6, 7)};
  const auto o = stack_model{}.order(h);
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0], std::make_pair(1u, 0u));
  expect_lin(h, stack_model{});
  // An empty pop that returns before pop(1) starts comes before push(1).
  const std::vector<op> e = {push(0, 1, 0, 10), pop_empty(1, 1, 5), pop(2, 1, 6, 7)};
  const auto oe = stack_model{}.order(e);
  ASSERT_EQ(oe.size(), 1u);
  EXPECT_EQ(oe[0], std::make_pair(1u, 0u));
  expect_lin(e, stack_model{});
  // No orders when a value is pushed twice or the stack starts full.
  EXPECT_TRUE(stack_model{}.order({push(0, 1, 0, 10), push(1, 1, 1, 5), pop(2, 1, 6, 7)}).empty());
  EXPECT_TRUE(stack_model(0, {9}).order(h).empty());
}

// --- histories in files and their count --------------------------------------

std::string temp_dir() {
  const char* dir = std::getenv("TMPDIR");
  return dir && *dir ? dir : "/tmp";
}
std::string temp_path(const char* name) { return temp_dir() + "/" + name; }

TEST(LinCheckFile, WriteAndReadBack) {
  std::mt19937_64 rng(5);
  const auto h = wide_stack_history(rng, 4, 3, 2);
  const std::string path = temp_path("lincheck_tests_roundtrip.txt");
  lin::write_history(path, "model=stack container=demo", h);
  std::string header;
  const auto back = lin::read_history(path, &header);
  EXPECT_EQ(header, "model=stack container=demo");
  ASSERT_EQ(back.size(), h.size());
  for (std::size_t i = 0; i < h.size(); ++i) {
    EXPECT_EQ(back[i].thread, h[i].thread);
    EXPECT_EQ(back[i].kind, h[i].kind);
    EXPECT_EQ(back[i].arg, h[i].arg);
    EXPECT_EQ(back[i].ret, h[i].ret);
    EXPECT_EQ(back[i].ok, h[i].ok);
    EXPECT_EQ(back[i].invoke, h[i].invoke);
    EXPECT_EQ(back[i].response, h[i].response);
  }
  std::ofstream(path, std::ios::app) << "1 0 5 0 2 3 4\n";  // ok must be 0 or 1
  EXPECT_THROW(lin::read_history(path), std::runtime_error);
  std::remove(path.c_str());
  EXPECT_THROW(lin::read_history(path), std::runtime_error);
}

// Runs body with the environment variable `name` set to `value` (or unset
// when value is null), then restores it.
template <class Body>
void with_env(const char* name, const char* value, Body body) {
  const stm_test::scoped_env env(name, value);
  body();
}

std::vector<stm_test::verdict> passes(std::size_t n) { return std::vector<stm_test::verdict>(n); }

stm_test::verdict undecided_verdict(std::uint64_t round) {
  std::vector<op> h;
  for (std::uint32_t t = 0; t < 8; ++t) h.push_back(push(t, t + 1, t, 100 + t));
  h.push_back(pop(8, 999, 200, 201));
  const auto r = lin::check(h, bare<stack_model>{stack_model{}}, 50);
  return stm_test::judge("round " + std::to_string(round) + ": ", h, r, round);
}

// Undecided histories are counted apart from violations, do not stop the
// loop, and fail the test only past 1 in 10,000; a violation fails at once.
TEST(LinCheckCount, UndecidedIsNotAViolation) {
  with_env("STM_RELIABILITY_OUT", nullptr, [] {
    with_env("STM_LIN_DUMP_DIR", nullptr, [] {
      const auto u = undecided_verdict(7);
      ASSERT_TRUE(u.undecided);
      ASSERT_FALSE(u.passed());
      ASSERT_EQ(u.ops.size(), 9u);
      {
        stm_test::history_count c("selftest", stm::backend::cpu);
        auto v = passes(9999);
        v[17] = u;
        EXPECT_TRUE(c.checked(v));
        EXPECT_EQ(c.undecided(), 1u);
        EXPECT_EQ(c.violations(), 0u);
        EXPECT_EQ(c.histories(), 9999u);
        EXPECT_TRUE(c.checked(passes(1)));
      }  // 1 in 10,000: tolerated
      EXPECT_NONFATAL_FAILURE(
          {
            stm_test::history_count c("selftest", stm::backend::cpu);
            auto v = passes(10000);
            v[1] = u;
            v[2] = u;
            EXPECT_TRUE(c.checked(v));
          },
          "2 of 10000 histories undecided");
      // A plain reason with the checker's text counts as undecided too.
      EXPECT_TRUE(stm_test::verdict(u.why).undecided);
      EXPECT_FALSE(stm_test::verdict("round 3: not linearizable: ...").undecided);
      EXPECT_NONFATAL_FAILURE(
          {
            stm_test::history_count c("selftest", stm::backend::cpu);
            auto v = passes(10000);
            v[5] = stm_test::verdict("round 5: not linearizable: popped twice");
            EXPECT_FALSE(c.checked(v));
            EXPECT_EQ(c.violations(), 1u);
          },
          "round 5: not linearizable");
    });
  });
}

TEST(LinCheckCount, UndecidedAndViolatingHistoriesAreDumped) {
  const std::string dir = temp_dir();
  with_env("STM_RELIABILITY_OUT", nullptr, [&] {
    with_env("STM_LIN_DUMP_DIR", dir.c_str(), [&] {
      auto v = passes(20000);
      v[3] = undecided_verdict(3);
      {
        stm_test::history_count c("selftest_dump", stm::backend::cpu, "model=stack");
        EXPECT_TRUE(c.checked(v));
      }
      const std::string path = dir + "/selftest_dump_cpu_" + (STM_PERTURB ? "perturbed" : "natural") +
                               "_round3_undecided.txt";
      std::string header;
      const auto back = lin::read_history(path, &header);
      EXPECT_EQ(back.size(), v[3].ops.size());
      EXPECT_EQ(header.rfind("model=stack container=selftest_dump backend=cpu", 0), 0u) << header;
      EXPECT_NE(header.find("round=3 outcome=undecided"), std::string::npos) << header;
      // The dumped history is refuted for good with the full search.
      EXPECT_FALSE(lin::hit_search_limit(lin::check(back, stack_model{})));
      std::remove(path.c_str());
    });
  });
}

// Re-checks a history written by history_count (STM_LIN_DUMP_DIR) or
// lin::write_history: STM_LIN_RECHECK=<file> [STM_LIN_RECHECK_STATES=<limit>].
// The header's model=stack|queue|set, capacity=N and initial=a,b,c pick the
// model. Skipped when STM_LIN_RECHECK is not set.
TEST(LinCheckRecheck, HistoryFromFile) {
  const char* file = std::getenv("STM_LIN_RECHECK");
  if (!file || !*file) GTEST_SKIP() << "set STM_LIN_RECHECK=<file> to re-check a dumped history";
  std::uint64_t limit = 2'000'000'000ull;
  if (const char* e = std::getenv("STM_LIN_RECHECK_STATES")) limit = std::strtoull(e, nullptr, 10);
  std::string header;
  const auto h = lin::read_history(file, &header);
  std::string model = "stack";
  std::size_t capacity = 0;
  std::vector<std::uint64_t> initial;
  std::istringstream words(header);
  for (std::string w; words >> w;) {
    if (w.rfind("model=", 0) == 0) model = w.substr(6);
    if (w.rfind("capacity=", 0) == 0) capacity = std::strtoull(w.c_str() + 9, nullptr, 10);
    if (w.rfind("initial=", 0) == 0) {
      std::istringstream vs(w.substr(8));
      for (std::string x; std::getline(vs, x, ',');)
        if (!x.empty()) initial.push_back(std::strtoull(x.c_str(), nullptr, 10));
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  lin::result r{};
  if (model == "stack") r = lin::check(h, stack_model(capacity, initial), limit);
  else if (model == "queue") r = lin::check(h, queue_model(capacity, initial), limit);
  else if (model == "set") r = lin::check(h, set_model(initial), limit);
  else FAIL() << file << ": unknown model '" << model << "' in the header '" << header << "'";
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "[ recheck  ] " << file << ": " << h.size() << " ops, "
            << (r.linearizable ? "linearizable" : lin::hit_search_limit(r) ? "undecided" : "NOT linearizable") << ", "
            << r.states_explored << " states, " << secs << " s\n";
  EXPECT_TRUE(r.linearizable) << r.explanation;
}

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
