// SPDX-License-Identifier: Apache-2.0
// indexed_seq under forced interleavings (CPU backend). This program is
// always built in the schedule-perturbation mode (STM_PERTURB=1 on this
// target only), whose per-thread hook (stm/detail/perturb.hpp) stops a thread
// at a chosen atomic until the test lets it go on: each test below replays
// one interleaving exactly, every run.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "containers/list/indexed_seq.hpp"

#if !STM_PERTURB
#error "this program needs the perturbation hooks: build it with STM_PERTURB=1"
#endif

namespace {

namespace node = stm::list::node;
namespace perturb = stm::platform::perturb;
using stm::op_status;

// Stops the thread that installed it before its first acquire load of a node
// word that is the pending insertion of `value` (the word of a node linked
// but not yet finished), until release() is called.
struct stop_before_reading_pending {
  explicit stop_before_reading_pending(std::uint32_t v) : value(v) {}
  std::uint32_t value;
  std::mutex m;
  std::condition_variable cv;
  bool stopped = false, released = false;

  static void hook(void* ctx, perturb::point p, const void* addr, std::size_t size) {
    auto& self = *static_cast<stop_before_reading_pending*>(ctx);
    if (p != perturb::point::before_load || size != sizeof(node::word_t)) return;
    // (A slot of the value index holding `value` has the same high half, but
    // none exists before the first insertion of `value` is published.)
    const node::word_t w = cuda::atomic_ref<const node::word_t, cuda::thread_scope_device>(
                               *static_cast<const node::word_t*>(addr))
                               .load(cuda::std::memory_order_acquire);
    if (node::key(w) != self.value || !node::flag(w) || node::marked(w)) return;
    std::unique_lock<std::mutex> lock(self.m);
    if (self.stopped) return;  // only the first such read
    self.stopped = true;
    self.cv.notify_all();
    self.cv.wait(lock, [&] { return self.released; });
  }
  // False when the thread did not stop within 10 s (the interleaving was not
  // reached: the code no longer reads its pending node, or reads it otherwise).
  bool wait_stopped() {
    std::unique_lock<std::mutex> lock(m);
    return cv.wait_for(lock, std::chrono::seconds(10), [&] { return stopped; });
  }
  void release() {
    std::lock_guard<std::mutex> lock(m);
    released = true;
    cv.notify_all();
  }
};

// insert_after(after, value) on a thread of its own, stopped just before it
// reads its pending node (stop_before_reading_pending); finish() lets it go on
// and returns its result.
class stopped_insert {
 public:
  stopped_insert(const stm::list::indexed_seq_ref& s, std::uint32_t after, std::uint32_t value) : stop_(value) {
    thread_ = std::thread([this, s, after, value] {
      perturb::set_thread_hook(&stop_before_reading_pending::hook, &stop_);
      result_ = s.insert_after(1, after, value);  // thread id 1; the test's own calls are 0
      perturb::set_thread_hook(nullptr, nullptr);
    });
  }
  /// False when the forced interleaving was not reached within 10 s.
  bool stopped() { return stop_.wait_stopped(); }
  op_status finish() {
    stop_.release();
    thread_.join();
    return result_;
  }

 private:
  stop_before_reading_pending stop_;
  op_status result_ = op_status::capacity;
  std::thread thread_;
};

// The lost result: an insert_after whose node another thread finished (the
// insertion took effect) and a third thread then removed must report ok, not
// exists. Schedule:
//   A: insert_after(2, 9) links node n (pending) behind 2's node, then stops
//      before it reads n's word to finish the insertion;
//   B: insert_after(2, 7) finds the pending node behind 2 and finishes it
//      (9 is published), then links 7 behind 2;
//   B: remove(9) -> ok (marks n);
//   A: goes on and reads n's word: no longer pending, and marked.
// The only linearizations: A's insert took effect (ok) before remove(9).
TEST(IndexedSeqSchedule, HelpedInsertRemovedBeforeTheInserterLooksStillReportsOk) {
  stm::list::indexed_seq seq(stm::backend::cpu, 16);
  seq.assign({5, 2});
  const auto s = seq.ref();
  stopped_insert inserter(s, 2, 9);
  if (!inserter.stopped()) {
    inserter.finish();
    FAIL() << "the inserter never read its pending node: the forced interleaving was not reached";
  }
  EXPECT_EQ(s.contains(0, 9), op_status::not_found) << "9 is linked but not yet published";
  EXPECT_EQ(s.insert_after(0, 2, 7), op_status::ok);  // helps: publishes 9 first
  EXPECT_EQ(s.contains(0, 9), op_status::ok);
  EXPECT_EQ(s.remove(0, 9), op_status::ok);
  const op_status a = inserter.finish();
  EXPECT_EQ(a, op_status::ok) << "insert_after(2, 9) took effect (remove(9) returned ok, nothing else inserts 9), "
                              << "but it returned " << stm::to_string(a);
  EXPECT_EQ(seq.contents(), (std::vector<std::uint32_t>{5, 2, 7}));
  seq.reclaim();
  EXPECT_EQ(seq.check(), "");
}

// The other outcome must stay exists: A's node fails because 9 was inserted
// (and published) elsewhere while A was stopped, and that copy was removed
// before A looks. A's node is marked by the failing finish; 9 is in U.
//   A: insert_after(2, 9) links node n behind 2 (pending), stops;
//   B: insert_after(5, 9): 5's successor is 2 (not pending), so B links its
//      own node m for 9 behind 5 and finishes it: 9 -> m is published;
//   B: insert_after(2, 7) finds n pending and finishes it: the index already
//      holds m for 9, so n fails (marked); then 7 goes behind 2;
//   B: remove(9) -> ok (marks m);
//   A: reads n's word: marked, flag still set: exists.
TEST(IndexedSeqSchedule, FailedInsertStillReportsExistsWhenTheWinnerIsRemoved) {
  stm::list::indexed_seq seq(stm::backend::cpu, 16);
  seq.assign({5, 2});
  const auto s = seq.ref();
  stopped_insert inserter(s, 2, 9);
  if (!inserter.stopped()) {
    inserter.finish();
    FAIL() << "the inserter never read its pending node: the forced interleaving was not reached";
  }
  EXPECT_EQ(s.insert_after(0, 5, 9), op_status::ok);  // this copy of 9 wins the index
  EXPECT_EQ(s.insert_after(0, 2, 7), op_status::ok);  // fails A's node while helping
  EXPECT_EQ(s.remove(0, 9), op_status::ok);
  const op_status a = inserter.finish();
  EXPECT_EQ(a, op_status::exists);
  EXPECT_EQ(seq.contents(), (std::vector<std::uint32_t>{5, 2, 7}));
  seq.reclaim();
  EXPECT_EQ(seq.check(), "");
}

}  // namespace
