// SPDX-License-Identifier: Apache-2.0
// launch_cpu (stm/launch.hpp): the pool of OS threads that progress::any
// launches share, and the launches that cannot have it (a launch from inside a
// launch, launches from several host threads at once) or that need every
// logical thread resident. Each logical id runs exactly once, an exception of
// a body reaches the caller, and the pool works on after it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "stm/launch.hpp"

namespace {

/// One counter per logical id, each expected to end at `times`.
void expect_each_once(const std::vector<std::atomic<std::uint32_t>>& hits, std::uint32_t times = 1) {
  std::uint32_t wrong = 0;
  for (std::size_t i = 0; i < hits.size(); ++i)
    if (hits[i].load() != times && wrong++ < 5) ADD_FAILURE() << "id " << i << " ran " << hits[i].load() << " times";
  EXPECT_EQ(wrong, 0u);
}

TEST(LaunchCpu, EveryIdRunsOnceForSizesAroundThePool) {
  for (std::uint32_t n : {1u, 2u, 63u, 64u, 65u, 1000u, 4097u}) {
    std::vector<std::atomic<std::uint32_t>> hits(n);
    std::atomic<std::uint32_t>* h = hits.data();
    stm::launch_cpu(n, [=](std::uint32_t tid) { h[tid].fetch_add(1); });
    SCOPED_TRACE("n = " + std::to_string(n));
    expect_each_once(hits);
  }
}

// With a thread per worker and launch, a worker of a 64-thread launch (one id
// each) always starts on a thread that has run nothing of this test; the pool
// runs launch after launch on the same threads.
TEST(LaunchCpu, LaunchesReuseThePoolsThreads) {
  static thread_local std::uint32_t ran_here = 0;
  std::atomic<std::uint32_t> reused{0};
  std::atomic<std::uint32_t>* r = &reused;
  for (int i = 0; i < 50; ++i)
    stm::launch_cpu(stm::cpu_pool_threads, [=](std::uint32_t) {
      if (ran_here++ > 0) r->fetch_add(1);
    });
  EXPECT_GT(reused.load(), 0u) << "every launch ran on threads of its own";
}

TEST(LaunchCpu, ReturnsTheTimeOfTheLaunch) {
  const double s = stm::launch_cpu(8, [](std::uint32_t tid) {
    if (tid == 3) std::this_thread::sleep_for(std::chrono::milliseconds(30));
  });
  EXPECT_GE(s, 0.025);
  EXPECT_LT(s, 30.0);
}

// A body that launches: the inner launches cannot have the pool (the outer
// launch has it), they start threads of their own and finish.
TEST(LaunchCpu, LaunchFromInsideALaunch) {
  constexpr std::uint32_t outer = 16, inner = 100;
  std::vector<std::atomic<std::uint32_t>> hits(outer * inner);
  std::atomic<std::uint32_t>* h = hits.data();
  stm::launch_cpu(outer, [=](std::uint32_t o) {
    stm::launch_cpu(inner, [=](std::uint32_t i) { h[o * inner + i].fetch_add(1); });
  });
  expect_each_once(hits);
}

// Several host threads launch at once: one has the pool at a time, the others
// start threads of their own; every launch runs each of its ids once.
TEST(LaunchCpu, ConcurrentLaunchesFromSeveralHostThreads) {
  constexpr std::uint32_t hosts = 4, launches = 40, n = 200;
  std::vector<std::atomic<std::uint32_t>> hits(hosts * n);
  std::vector<std::thread> ts;
  for (std::uint32_t hst = 0; hst < hosts; ++hst)
    ts.emplace_back([&hits, hst] {
      std::atomic<std::uint32_t>* h = hits.data() + hst * n;
      for (std::uint32_t l = 0; l < launches; ++l) stm::launch_cpu(n, [=](std::uint32_t tid) { h[tid].fetch_add(1); });
    });
  for (auto& t : ts) t.join();
  expect_each_once(hits, launches);
}

// The first exception of a body is rethrown by the launch, and the pool
// serves the next launch. The worker that threw runs none of its later ids
// (37 + 64k); the other workers are not stopped and run all of theirs.
TEST(LaunchCpu, ExceptionOfABodyReachesTheCallerAndThePoolWorksOn) {
  constexpr std::uint32_t n = 500, bad = 37, workers = stm::cpu_pool_threads;
  for (int round = 0; round < 3; ++round) {
    std::vector<std::atomic<std::uint32_t>> hits(n);
    std::atomic<std::uint32_t>* h = hits.data();
    try {
      stm::launch_cpu(n, [=](std::uint32_t tid) {
        h[tid].fetch_add(1);
        if (tid == bad) throw std::runtime_error("body 37 failed");
      });
      ADD_FAILURE() << "the launch returned normally";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "body 37 failed");
    }
    for (std::uint32_t tid = 0; tid < n; ++tid)
      EXPECT_EQ(hits[tid].load(), tid % workers == bad && tid > bad ? 0u : 1u) << "id " << tid;
  }
  // An exception of an inner launch reaches the outer launch's caller.
  EXPECT_THROW(stm::launch_cpu(4,
                               [](std::uint32_t) {
                                 stm::launch_cpu(10, [](std::uint32_t tid) {
                                   if (tid == 9) throw std::logic_error("inner");
                                 });
                               }),
               std::logic_error);
  std::vector<std::atomic<std::uint32_t>> hits(300);
  std::atomic<std::uint32_t>* h = hits.data();
  stm::launch_cpu(300, [=](std::uint32_t tid) { h[tid].fetch_add(1); });
  expect_each_once(hits);
}

// progress::all_resident gives every logical thread its own OS thread, more
// than the pool has: a barrier of all of them completes.
TEST(LaunchCpu, AllResidentLaunchLargerThanThePool) {
  constexpr std::uint32_t n = 3 * stm::cpu_pool_threads;
  std::atomic<std::uint32_t> arrived{0};
  std::atomic<std::uint32_t>* a = &arrived;
  stm::launch_cpu(
      n,
      [=](std::uint32_t) {
        a->fetch_add(1);
        while (a->load() < n) std::this_thread::yield();
      },
      stm::progress::all_resident);
  EXPECT_EQ(arrived.load(), n);
}

}  // namespace
