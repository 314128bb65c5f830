// SPDX-License-Identifier: Apache-2.0
// The STM's commit validation under forced interleavings (CPU backend). Like
// tests/containers/list/indexed_seq_schedule_tests.cpp, this program is always
// built in the schedule-perturbation mode (STM_PERTURB=1 on this target only):
// a thread's hook (stm/detail/perturb.hpp) stops it at a chosen atomic, or at
// a chosen relaxed load, until the test lets it go on, so each test replays
// one interleaving exactly, every run.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

#include "stm/stm.hpp"

#if !STM_PERTURB
#error "this program needs the perturbation hooks: build it with STM_PERTURB=1"
#endif

namespace {

namespace perturb = stm::platform::perturb;

// Stops the thread that installed it at the n-th time it reaches point `p` on
// address `addr`, until release() is called.
struct stop_at {
  stop_at(perturb::point at, const void* where, std::uint32_t nth) : p(at), addr(where), n(nth) {}
  perturb::point p;
  const void* addr;
  std::uint32_t n;
  std::uint32_t seen = 0;  // touched by the stopping thread only
  std::mutex m;
  std::condition_variable cv;
  bool stopped = false, released = false, finished = false;

  static void hook(void* ctx, perturb::point p, const void* addr, std::size_t) {
    auto& self = *static_cast<stop_at*>(ctx);
    if (p != self.p || addr != self.addr || ++self.seen != self.n) return;
    std::unique_lock<std::mutex> lock(self.m);
    self.stopped = true;
    self.cv.notify_all();
    self.cv.wait(lock, [&] { return self.released; });
  }
  // The thread stopped here (true) or ended without stopping (false); waits
  // up to 10 s for either.
  bool wait_stopped_or_finished() {
    std::unique_lock<std::mutex> lock(m);
    cv.wait_for(lock, std::chrono::seconds(10), [&] { return stopped || finished; });
    return stopped;
  }
  void finish() {
    std::lock_guard<std::mutex> lock(m);
    finished = true;
    cv.notify_all();
  }
  void release() {
    std::lock_guard<std::mutex> lock(m);
    released = true;
    cv.notify_all();
  }
};

using tx_t = stm::transaction<stm::prstm, stm::tx_config<4, 4, /*Opaque=*/false>>;

// Words x, y, z, w under locks of their own, and the first two of the three
// transactions of each test below (priorities: lower thread id wins):
//   U2: reads z, writes y; its commit pre-locks y, validates z (free), and
//       stops before its final lock of y (claim_y);
//   U1: writes x and z, commits (z is free: U2 only read it);
//   U2 goes on later: final lock, write-back, release at a new version
//       (finish_u2).
// U2 -> U1 (U2 read z before U1 wrote it): a transaction R that reads x from
// U1 and y before U2 wrote it must not commit (R -> U2 closes a cycle).
class ValidationSchedule : public ::testing::Test {
 protected:
  ValidationSchedule() { words.upload({10, 20, 30, 40}); }
  void claim_y(std::uint32_t u2_tid, std::uint32_t u1_tid) {
    for (const std::uint64_t* other : {x, z, w}) ASSERT_NE(y_lock, table.word_ptr(table.index_of(other)));
    u2 = std::thread([this, u2_tid] {
      tx_t tx(table, u2_tid);
      tx.begin();
      const std::uint64_t zv = tx.read(z);
      tx.write(y, zv + 1);
      perturb::set_thread_hook(&stop_at::hook, &u2_stop);
      u2_committed = tx.commit();
      perturb::set_thread_hook(nullptr, nullptr);
      u2_stop.finish();
    });
    ASSERT_TRUE(u2_stop.wait_stopped_or_finished()) << "U2 never reached its final lock of y";
    tx_t tx(table, u1_tid);
    tx.begin();
    tx.write(x, std::uint64_t(11));
    tx.write(z, std::uint64_t(31));
    ASSERT_TRUE(tx.commit()) << "U1 touches nothing U2 holds";
  }
  void finish_u2() {
    u2_stop.release();
    if (u2.joinable()) u2.join();
  }
  void TearDown() override { finish_u2(); }

  stm::buffer<std::uint64_t> words{stm::backend::cpu, 4};
  stm::lock_table locks{stm::backend::cpu, 4, words.data(), sizeof(std::uint64_t)};
  const stm::lock_table_ref table = locks.ref();
  std::uint64_t* const x = words.data();
  std::uint64_t* const y = x + 1;
  std::uint64_t* const z = x + 2;
  std::uint64_t* const w = x + 3;
  const void* const y_lock = table.word_ptr(table.index_of(y));
  // U2 stops at its second read-modify-write of y's lock word (the first is
  // the pre-lock, the second the final lock).
  stop_at u2_stop{perturb::point::before_rmw, y_lock, 2};
  bool u2_committed = false;
  std::thread u2;
};

// A read-only commit must not pass a read whose location a committer claimed
// and then overwrote during the validation.
//   U2 (thread 1), U1 (thread 2): claim_y;
//   R  (thread 3): reads y (the old value, under U2's pre-lock) and x (U1's),
//      then commits read-only: it loads y's lock word (U2's pre-lock, at the
//      version R read) and y's value (still the old one), and stops there;
//   U2 goes on (finish_u2); R goes on.
// R must fail: the pre-lock it saw in its validation claims y. A validation
// that looked at the pre-lock in a second load of the lock word (after U2
// released it) passed R. With a single load R fails at once and never loads
// y's value (it does not stop; the test allows both).
TEST_F(ValidationSchedule, ReadOnlyCommitFailsOnAPreLockItSawEvenIfItsHolderCommitsDuringTheValidation) {
  claim_y(1, 2);
  if (HasFatalFailure()) return;

  // R: stopped after its validation loads y's value (if it gets that far).
  stop_at r_stop(perturb::point::after_load, y, 1);
  bool r_committed = true;
  std::uint64_t r_y = 0, r_x = 0;
  std::thread r([&] {
    tx_t tx(table, 3);
    tx.begin();
    r_y = tx.read(y);
    r_x = tx.read(x);
    perturb::set_thread_hook(&stop_at::hook, &r_stop);
    r_committed = tx.commit();
    perturb::set_thread_hook(nullptr, nullptr);
    r_stop.finish();
  });
  const bool r_stopped = r_stop.wait_stopped_or_finished();
  EXPECT_EQ(r_y, 20u);
  EXPECT_EQ(r_x, 11u);

  finish_u2();
  EXPECT_TRUE(u2_committed);
  if (r_stopped) r_stop.release();
  r.join();
  EXPECT_FALSE(r_committed) << "R read y = 20 (before U2's commit) and x = 11 (from U1, which U2 precedes), and "
                               "committed: a cycle U2 -> U1 -> R -> U2";
  EXPECT_EQ(words.to_vector(), (std::vector<std::uint64_t>{11, 31, 31, 40}));  // U2 wrote z + 1 = 31 from z = 30
}

// The same with R an update (it also writes w) of the highest priority: its
// commit validates y after its own pre-lock of w, finds U2's pre-lock of y at
// the version R read, and steals it (prstm's step 2). The steal, a CAS from
// the word R tested, is where U2 may commit in between:
//   U2 (thread 5), U1 (thread 6): claim_y;
//   R  (thread 1): reads y (old, under U2's pre-lock) and x (U1's), writes w;
//      its validation loads y's lock word (U2's pre-lock, R's version) and
//      y's value (old), and stops before the stealing CAS;
//   U2 goes on (finish_u2);
//   R goes on: the CAS expects the pre-lock it saw, fails on the new word,
//      and the version test on that word fails R.
// A steal that took the word whatever it held would commit R (the cycle
// again) and give y back at U2's old version.
TEST_F(ValidationSchedule, UpdateCommitFailsWhenThePreLockItStealsIsCommittedBeforeTheSteal) {
  claim_y(5, 6);
  if (HasFatalFailure()) return;

  // R: stopped at its first read-modify-write of y's lock word (the steal).
  stop_at r_stop(perturb::point::before_rmw, y_lock, 1);
  bool r_committed = true;
  std::uint64_t r_y = 0, r_x = 0, r_steals = 0;
  std::thread r([&] {
    tx_t tx(table, 1);
    tx.begin();
    r_y = tx.read(y);
    r_x = tx.read(x);
    tx.write(w, r_y + r_x);
    perturb::set_thread_hook(&stop_at::hook, &r_stop);
    r_committed = tx.commit();
    perturb::set_thread_hook(nullptr, nullptr);
    r_steals = tx.counters().steals;
    r_stop.finish();
  });
  const bool r_stopped = r_stop.wait_stopped_or_finished();
  EXPECT_EQ(r_y, 20u);
  EXPECT_EQ(r_x, 11u);

  finish_u2();
  EXPECT_TRUE(u2_committed) << "R has not stolen U2's pre-lock yet";
  if (r_stopped) r_stop.release();
  r.join();
  EXPECT_TRUE(r_stopped) << "R never tried to steal U2's pre-lock of y";
  EXPECT_FALSE(r_committed) << "R read y = 20 (before U2's commit) and x = 11 (from U1, which U2 precedes), and "
                               "committed: a cycle U2 -> U1 -> R -> U2";
  EXPECT_EQ(r_steals, 0u) << "the steal must fail: U2 released y at a new version first";
  EXPECT_EQ(words.to_vector(), (std::vector<std::uint64_t>{11, 31, 31, 40}));
  for (std::uint32_t word : locks.snapshot()) EXPECT_TRUE(stm::lock_word::is_free(word));
}

// An opaque read (with the table's commit clock, and a manager that polls
// locks) must not accept a value whose location a committer claimed and
// overwrote while the read polled the claim:
//   U2 (thread 1), U1 (thread 2): claim_y (both commit clock increments come
//      before R starts: R's snapshot counts them);
//   R  (thread 3, opaque): reads x (U1's; the clock has not moved), then y:
//      its first look shows U2's pre-lock at the version of the old value,
//      the clock has not moved, so it re-checks y's lock word, finds the
//      pre-lock again, and stops right after that load;
//   U2 goes on (finish_u2);
//   R goes on: it polls the pre-lock; the next load shows y free, at U2's
//      new version: the read fails (x = 11 with y = 20 is no snapshot).
// A re-check that tested the version on one load and then polled only the
// pre-lock bit on later ones would accept y = 20 beside x = 11.
TEST_F(ValidationSchedule, OpaqueReadFailsWhenThePreLockItPollsIsCommitted) {
  claim_y(1, 2);
  if (HasFatalFailure()) return;

  using opaque_tx = stm::transaction<stm::prstm, stm::tx_config<4, 4, /*Opaque=*/true>>;
  stm::manager_tuning polling;
  polling.wait_polls = 1u << 30;  // polls a pre-lock until it changes
  // R: stopped after its second load of y's lock word (the first is the
  // read's own look, the second the re-check's).
  stop_at r_stop(perturb::point::after_load, y_lock, 2);
  bool r_active = true;
  stm::abort_cause r_cause = stm::abort_cause::semantic;
  std::uint64_t r_y = 0, r_x = 0;
  std::thread r([&] {
    opaque_tx tx(table, 3, stm::with_tuning<stm::prstm>(polling));
    tx.begin();
    r_x = tx.read(x);
    perturb::set_thread_hook(&stop_at::hook, &r_stop);
    r_y = tx.read(y);
    perturb::set_thread_hook(nullptr, nullptr);
    r_active = tx.active();
    r_cause = tx.cause();
    r_stop.finish();
  });
  const bool r_stopped = r_stop.wait_stopped_or_finished();
  finish_u2();
  EXPECT_TRUE(u2_committed);
  if (r_stopped) r_stop.release();
  r.join();
  EXPECT_TRUE(r_stopped) << "R never re-checked y's lock word";
  EXPECT_EQ(r_x, 11u);
  EXPECT_FALSE(r_active) << "R's body saw x = " << r_x << " (from U1, which U2 precedes) and y = " << r_y
                         << " (before U2's commit): no snapshot";
  EXPECT_EQ(r_cause, stm::abort_cause::validation);
  EXPECT_EQ(words.to_vector(), (std::vector<std::uint64_t>{11, 31, 31, 40}));
}

// An opaque read-only transaction never commits the cycle U2 -> U1 -> R -> U2:
// its read that closes it fails, so its commit needs no validation of its own
// for opacity (docs/stm-core.md#read-only-validation):
//   R  (thread 3, opaque, the default tuning): reads y (20) before anything;
//   U2 (thread 1), U1 (thread 2): claim_y (U2's pre-lock of y and both clock
//      increments come after R's snapshot);
//   R  reads x (11, U1's): the clock moved, so every read is checked again;
//      y's lock word shows U2's pre-lock: the read fails, and R with it.
// A re-check that skipped the earlier reads while the clock moved, or passed
// over a pre-lock, lets R see x = 11 beside y = 20; a read-only commit that
// did not validate would then commit it.
TEST_F(ValidationSchedule, OpaqueReadOnlyTransactionFailsAtTheReadThatClosesTheCycle) {
  using opaque_tx = stm::transaction<stm::prstm, stm::tx_config<4, 4, /*Opaque=*/true>>;
  std::mutex m;
  std::condition_variable cv;
  int step = 0;  // 1: R read y; 2: claim_y done
  bool r_active = true, r_committed = true;
  stm::abort_cause r_cause = stm::abort_cause::semantic;
  std::uint64_t r_y = 0;
  std::thread r([&] {
    opaque_tx tx(table, 3);
    tx.begin();
    r_y = tx.read(y);
    {
      std::unique_lock<std::mutex> lock(m);
      step = 1;
      cv.notify_all();
      cv.wait(lock, [&] { return step == 2; });
    }
    (void)tx.read(x);
    r_active = tx.active();
    r_cause = tx.cause();
    r_committed = r_active && tx.commit();
  });
  {
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] { return step == 1; });
  }
  claim_y(1, 2);
  {
    std::lock_guard<std::mutex> lock(m);
    step = 2;
    cv.notify_all();
  }
  r.join();
  EXPECT_EQ(r_y, 20u);
  EXPECT_FALSE(r_active) << "R read y = 20 before U2's pre-lock and then x from U1, which U2 precedes";
  EXPECT_EQ(r_cause, stm::abort_cause::validation);
  EXPECT_FALSE(r_committed);
  finish_u2();
  EXPECT_TRUE(u2_committed);
  EXPECT_EQ(words.to_vector(), (std::vector<std::uint64_t>{11, 31, 31, 40}));
}

// An escalated update holds every lock it took, read or written, until its
// write-back is done: stopped at its commit clock increment (after its final
// locks, right before it writes back), each of x, y and z is final-locked by
// it. A commit that gave back a lock before its write-back (its read-only
// locks, or its write locks before the values are out) would let another
// transaction read the old value of a location whose write is under way, or
// overwrite one the escalated transaction's writes depend on.
//   E (thread 4): attempt 0 reads x, y, z, writes x and y, and its commit
//   meets another's final lock on x (a lost lock, retried); attempt 1 runs escalated exclusively
//   (EscalateAfter = 1, EscalateMinReads = 1), takes x, y and z as its final
//   locks, writes x = x + z and y = y + z, and commits.
TEST_F(ValidationSchedule, EscalatedCommitHoldsEveryLockUntilItsWriteBackIsDone) {
  using escalating_tx = stm::transaction<stm::prstm, stm::tx_config<4, 4, true, false, 1, 1>>;
  ASSERT_TRUE(table.has_clock());
  stop_at e_stop(perturb::point::before_rmw, table.clock, 1);
  bool e_committed = false;
  std::uint64_t e_escalations = 0;
  std::thread e([&] {
    escalating_tx tx(table, 4);
    tx.begin();
    for (int attempt = 0; attempt < 2; ++attempt) {
      const std::uint64_t xv = tx.read(x), yv = tx.read(y), zv = tx.read(z);
      tx.write(x, xv + zv);
      tx.write(y, yv + zv);
      if (attempt == 0) {
        // Its commit meets another's final lock on x (thread 9): a lost lock.
        const auto xl = table.word(table.index_of(x));
        const std::uint32_t free_word = xl.load(stm::memory_order_relaxed);
        xl.store(stm::lock_word::make_locked(stm::lock_word::version(free_word), 9), stm::memory_order_relaxed);
        const bool committed = tx.commit();
        xl.store(free_word, stm::memory_order_relaxed);
        if (committed || !tx.retry()) break;
        continue;
      }
      perturb::set_thread_hook(&stop_at::hook, &e_stop);
      e_committed = tx.commit();
      perturb::set_thread_hook(nullptr, nullptr);
    }
    e_escalations = tx.counters().escalations;
    e_stop.finish();
  });
  const bool e_stopped = e_stop.wait_stopped_or_finished();
  if (e_stopped) {
    const auto snap = locks.snapshot();
    for (const std::uint64_t* loc : {x, y, z}) {
      const std::uint32_t word = snap[table.index_of(loc)];
      EXPECT_TRUE(stm::lock_word::is_final(word) && stm::lock_word::owner(word) == 4u)
          << "location " << (loc - x) << "'s lock is not E's final lock at E's write-back (word " << word << ")";
    }
    EXPECT_EQ(words.to_vector(), (std::vector<std::uint64_t>{10, 20, 30, 40})) << "nothing written back yet";
    e_stop.release();
  }
  e.join();
  EXPECT_TRUE(e_stopped) << "E never incremented the commit clock";
  EXPECT_TRUE(e_committed);
  EXPECT_EQ(e_escalations, 1u);
  EXPECT_EQ(words.to_vector(), (std::vector<std::uint64_t>{40, 50, 30, 40}));
  for (std::uint32_t word : locks.snapshot()) EXPECT_TRUE(stm::lock_word::is_free(word));
}

// prstm's larger sets' path (sets too large to unroll) waits for a
// lower-priority pre-lock's outcome before it steals it
// (docs/design-decisions.md#prstm-long-sets). A pre-lock of thread 5 (lower
// priority) on y, then R (thread 1) commits with the pre-lock still there:
// R stops at its second load of y's lock word during the commit (its second
// poll). While R is stopped the owner gives y back at the same version (it
// aborted); R goes on, finds y free, takes or reads it, and commits without
// a steal. A commit that stole at its first look (the small sets' rule, and
// this path's before the wait) never loads the word a second time: it
// steals, does not stop, and counts a steal.
class LowerPriorityPreLock : public ::testing::Test {
 protected:
  using long_tx = stm::transaction<stm::prstm, stm::tx_config<16, 8, /*Opaque=*/false>>;
  static_assert(!stm::tx_descriptor<stm::tx_config<16, 8, false>>::unrolled, "the larger sets' path");
  LowerPriorityPreLock() { words.upload({10, 20, 30, 40}); }

  // R's commit: body(tx) then commit with the hook stopping at y's lock
  // word's second load; the owner gives the pre-lock back while R is stopped.
  template <class Body>
  void run_r(Body body) {
    y_word().store(stm::lock_word::make_prelocked(0, 5));
    stop_at r_stop(perturb::point::after_load, y_lock, 2);
    std::thread r([&] {
      long_tx tx(table, 1);
      tx.begin();
      body(tx);
      perturb::set_thread_hook(&stop_at::hook, &r_stop);
      r_committed = tx.commit();
      perturb::set_thread_hook(nullptr, nullptr);
      r_steals = tx.counters().steals;
      r_stop.finish();
    });
    r_stopped = r_stop.wait_stopped_or_finished();
    if (r_stopped) {
      EXPECT_EQ(y_word().load(), stm::lock_word::make_prelocked(0, 5)) << "R took the pre-lock before its wait ended";
      y_word().store(stm::lock_word::make_unlocked(0));  // the owner aborted: y given back at its version
      r_stop.release();
    }
    r.join();
  }
  stm::atomic_ref<std::uint32_t> y_word() const {
    return stm::atomic_ref<std::uint32_t>(*static_cast<std::uint32_t*>(const_cast<void*>(y_lock)));
  }

  stm::buffer<std::uint64_t> words{stm::backend::cpu, 4};
  stm::lock_table locks{stm::backend::cpu, 4, words.data(), sizeof(std::uint64_t)};
  const stm::lock_table_ref table = locks.ref();
  std::uint64_t* const x = words.data();
  std::uint64_t* const y = x + 1;
  const void* const y_lock = table.word_ptr(table.index_of(y));
  bool r_stopped = false, r_committed = false;
  std::uint64_t r_steals = 0;
};

// Step 1: R writes y.
TEST_F(LowerPriorityPreLock, WrittenLocationIsWaitedForThenTakenWithoutASteal) {
  run_r([&](long_tx& tx) { tx.write(y, std::uint64_t(21)); });
  EXPECT_TRUE(r_stopped) << "R stole the lower priority's pre-lock without waiting for its outcome";
  EXPECT_TRUE(r_committed);
  EXPECT_EQ(r_steals, 0u);
  EXPECT_EQ(words.to_vector(), (std::vector<std::uint64_t>{10, 21, 30, 40}));
  for (std::uint32_t word : locks.snapshot()) EXPECT_TRUE(stm::lock_word::is_free(word));
}

// Step 2: R reads y and writes x.
TEST_F(LowerPriorityPreLock, ReadLocationIsWaitedForThenValidatedWithoutASteal) {
  run_r([&](long_tx& tx) { tx.write(x, tx.read(y) + 1); });
  EXPECT_TRUE(r_stopped) << "R stole the lower priority's pre-lock without waiting for its outcome";
  EXPECT_TRUE(r_committed);
  EXPECT_EQ(r_steals, 0u);
  EXPECT_EQ(words.to_vector(), (std::vector<std::uint64_t>{21, 20, 30, 40}));
  for (std::uint32_t word : locks.snapshot()) EXPECT_TRUE(stm::lock_word::is_free(word));
}

}  // namespace
