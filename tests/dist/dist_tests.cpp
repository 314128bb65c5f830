// SPDX-License-Identifier: Apache-2.0
// stm::dist on simulated PEs (CPU backend): the partitioned bank conserves
// money over 2, 3 and 4 PEs at 0, 50 and 100% cross-PE transfers; the
// priority rule holds across PEs (a higher-priority remote transaction steals
// a lower one's pre-lock, and not the other way round); no update of one
// remote word is lost under contention; the priorities stay unique.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "stm/dist/dist.hpp"
#include "stm/launch.hpp"
#include "workloads/bank/dist_bank.hpp"

namespace {

using stm::dist::gptr;
using stm::dist::layout;
using stm::dist::sim_space;
using stm::dist::sim_transport;
using tx_t = stm::dist::transaction<sim_transport, 8, 8>;

struct bank_case {
  std::uint32_t pes;
  double cross;
};

class DistBank : public ::testing::TestWithParam<bank_case> {};

TEST_P(DistBank, ConservesMoneyAcrossPes) {
  stm::workloads::dist_bank::config c;
  c.npes = GetParam().pes;
  c.cross = GetParam().cross;
  c.accounts = 48 * c.npes;  // few accounts per PE: many conflicts, local and remote
  c.threads = 8;
  c.tpt = 200;
  c.seed = 7 + c.npes;
  const auto out = stm::workloads::dist_bank::run_sim<stm::cpu_exec>(c);
  EXPECT_TRUE(out.verified) << out.message;
  EXPECT_EQ(out.total, out.expected);
  EXPECT_EQ(out.held_locks, 0u);
  EXPECT_EQ(out.stats.commits, out.transfers);
  if (c.cross == 0) {
    EXPECT_EQ(out.cross_commits, 0u);
  }
  if (c.cross == 100) {
    EXPECT_EQ(out.cross_commits, out.transfers);  // no account runs dry in this run
  }
  if (c.cross == 50) {
    EXPECT_GT(out.cross_commits, out.transfers / 4);
    EXPECT_LT(out.cross_commits, out.transfers * 3 / 4);
  }
}

INSTANTIATE_TEST_SUITE_P(PesAndCross, DistBank,
                         ::testing::Values(bank_case{2, 0}, bank_case{2, 50}, bank_case{2, 100}, bank_case{3, 0},
                                           bank_case{3, 50}, bank_case{3, 100}, bank_case{4, 0}, bank_case{4, 50},
                                           bank_case{4, 100}),
                         [](const ::testing::TestParamInfo<bank_case>& i) {
                           return std::to_string(i.param.pes) + "pes_" + std::to_string(int(i.param.cross)) + "cross";
                         });

// Two PEs of 16 words, one word per lock; every word starts at 100.
struct two_pes {
  layout shape{2, 16, 0, 0};
  sim_space space{stm::backend::cpu, shape};
  two_pes() {
    for (std::uint32_t p = 0; p < 2; ++p) space.set_words(p, std::vector<std::uint32_t>(16, 100u));
  }
  std::uint32_t word(std::uint32_t pe, std::uint32_t i) const { return space.words(pe)[i]; }
};

// A transaction of PE 0 (low priority) pre-locks a word of PE 1; a
// transaction of PE 1 with a higher priority writes the same word, steals the
// pre-lock and commits; the first one's final lock then fails (cause lock),
// and only the second one's write is there.
TEST(DistPriority, HigherRemoteStealsLowerPrelock) {
  two_pes s;
  const gptr<std::uint32_t> x{1, 3};
  tx_t low(s.space.transport(), s.shape, stm::dist::priority(0, 9, 2));   // 18
  tx_t high(s.space.transport(), s.shape, stm::dist::priority(1, 2, 2));  // 5
  ASSERT_LT(high.priority(), low.priority());
  low.begin();
  low.write(x, low.read(x) + 1);
  ASSERT_TRUE(low.prelock_writes());
  ASSERT_TRUE(stm::lock_word::is_prelocked(s.space.lock_words(1)[3]));
  ASSERT_EQ(stm::lock_word::owner(s.space.lock_words(1)[3]), low.priority());

  high.begin();
  high.write(x, high.read(x) + 10);  // a pre-lock does not stop a read
  ASSERT_TRUE(high.active());
  EXPECT_TRUE(high.commit());
  EXPECT_EQ(high.counters().steals, 1u);

  EXPECT_TRUE(low.validate_reads());  // its read is covered: checked by version (unchanged: high unlocked at +1 later)
  EXPECT_FALSE(low.finalize());
  EXPECT_EQ(low.status(), stm::tx_status::aborted);
  EXPECT_EQ(low.cause(), stm::abort_cause::lock);
  EXPECT_EQ(s.word(1, 3), 110u);
  EXPECT_EQ(s.space.held_locks(), 0u);
}

// The other way round: a lower-priority transaction of PE 1 meets the
// pre-lock of a higher one of PE 0 and gives up (cause prelock); the higher
// one then commits.
TEST(DistPriority, LowerCannotStealHigherPrelock) {
  two_pes s;
  const gptr<std::uint32_t> x{1, 5};
  tx_t high(s.space.transport(), s.shape, stm::dist::priority(0, 1, 2));  // 2
  tx_t low(s.space.transport(), s.shape, stm::dist::priority(1, 4, 2));   // 9
  high.begin();
  high.write(x, high.read(x) + 1);
  ASSERT_TRUE(high.prelock_writes());

  low.begin();
  low.write(x, low.read(x) + 10);
  EXPECT_FALSE(low.commit());
  EXPECT_EQ(low.cause(), stm::abort_cause::prelock);
  EXPECT_EQ(low.counters().steals, 0u);

  EXPECT_TRUE(high.validate_reads());
  EXPECT_TRUE(high.finalize());
  EXPECT_EQ(s.word(1, 5), 101u);
  EXPECT_EQ(s.space.held_locks(), 0u);
}

// Write skew across PEs: low reads y (PE 0) and writes x (PE 1); high reads
// x and writes y. Once low has pre-locked x, high's validation finds low's
// pre-lock on a word it only reads and steals it, so low fails its final
// lock: they cannot both commit.
TEST(DistPriority, ReadValidationStealsAcrossPes) {
  two_pes s;
  const gptr<std::uint32_t> x{1, 0}, y{0, 0};
  tx_t low(s.space.transport(), s.shape, stm::dist::priority(1, 7, 2));
  tx_t high(s.space.transport(), s.shape, stm::dist::priority(0, 0, 2));
  low.begin();
  high.begin();
  low.write(x, low.read(y) + 1);
  high.write(y, high.read(x) + 1);
  ASSERT_TRUE(low.prelock_writes());
  EXPECT_TRUE(high.commit());
  EXPECT_EQ(high.counters().steals, 1u);
  EXPECT_FALSE(low.validate_reads() && low.finalize());
  EXPECT_EQ(s.word(0, 0), 101u);
  EXPECT_EQ(s.word(1, 0), 100u);
  EXPECT_EQ(s.space.held_locks(), 0u);
}

// A read that moved (another commit in between) fails the commit, remote or
// local; the read-only commit fails on a pre-lock of anyone.
TEST(DistValidation, StaleReadsAbort) {
  two_pes s;
  const gptr<std::uint32_t> x{1, 2}, y{0, 2};
  tx_t a(s.space.transport(), s.shape, stm::dist::priority(0, 0, 2));
  tx_t b(s.space.transport(), s.shape, stm::dist::priority(1, 0, 2));
  a.begin();
  const std::uint32_t seen = a.read(x);
  a.write(y, seen);
  b.begin();
  b.write(x, b.read(x) + 1);
  ASSERT_TRUE(b.commit());
  EXPECT_FALSE(a.commit());
  EXPECT_EQ(a.cause(), stm::abort_cause::validation);

  tx_t ro(s.space.transport(), s.shape, stm::dist::priority(0, 3, 2));
  ro.begin();
  (void)ro.read(y);
  b.begin();
  b.write(y, b.read(y) + 1);
  ASSERT_TRUE(b.prelock_writes());
  EXPECT_FALSE(ro.commit());  // y pre-locked: no snapshot guaranteed
  EXPECT_TRUE(b.validate_reads() && b.finalize());
  EXPECT_EQ(s.space.held_locks(), 0u);
}

// Capacity: an attempt that needs more writes than the descriptor holds
// ends with cause capacity and is not retried by atomically().
TEST(DistValidation, CapacityIsNotRetried) {
  two_pes s;
  stm::dist::transaction<sim_transport, 2, 2> tx(s.space.transport(), s.shape, 0);
  const auto st = stm::dist::atomically(tx, [](auto& t) {
    for (std::uint32_t i = 0; i < 3; ++i) TX_WRITE_IN(t, (gptr<std::uint32_t>{1, i}), 1u);
  });
  EXPECT_EQ(st, stm::tx_status::aborted);
  EXPECT_EQ(tx.cause(), stm::abort_cause::capacity);
  EXPECT_EQ(tx.attempt(), 0u);
  EXPECT_EQ(s.word(1, 0), 100u);
  EXPECT_EQ(s.space.held_locks(), 0u);
}

// Many threads of every PE increment one word of PE 1 (and a word of their
// own PE in the same transaction): no increment is lost.
struct increment_kernel {
  sim_transport net;
  layout shape;
  std::uint32_t threads, rounds;
  STM_HD void operator()(std::uint32_t tid) const {
    const std::uint32_t pe = tid / threads, local = tid % threads;
    tx_t tx(net, shape, stm::dist::priority(pe, local, shape.npes));
    const gptr<std::uint32_t> hot{1, 0}, own{pe, 1 + local % (shape.words_per_pe - 1)};
    for (std::uint32_t r = 0; r < rounds; ++r)
      stm::dist::atomically(tx, [&](auto& t) {
        TX_WRITE_IN(t, hot, TX_READ_IN(t, hot) + 1u);
        TX_WRITE_IN(t, own, TX_READ_IN(t, own) + 1u);
      });
  }
};

TEST(DistContention, NoLostUpdateOnOneRemoteWord) {
  for (std::uint32_t pes : {2u, 3u, 4u}) {
    const layout shape{pes, 8, 0, 0};
    sim_space space(stm::backend::cpu, shape);
    const std::uint32_t threads = 6, rounds = 300;
    stm::cpu_exec::run(pes * threads, increment_kernel{space.transport(), shape, threads, rounds});
    EXPECT_EQ(space.words(1)[0], pes * threads * rounds) << pes << " PEs";
    std::uint64_t own = 0;
    for (std::uint32_t p = 0; p < pes; ++p)
      for (std::uint32_t i = 1; i < 8; ++i) own += space.words(p)[i];
    EXPECT_EQ(own, std::uint64_t(pes) * threads * rounds);
    EXPECT_EQ(space.held_locks(), 0u);
  }
}

TEST(DistPriorities, UniqueAcrossPesWithinTheLimit) {
  for (std::uint32_t pes = 1; pes <= 8; ++pes) {
    const std::uint32_t limit = stm::dist::threads_per_pe_limit(pes);
    EXPECT_EQ(limit, stm::lock_word::max_threads / pes);
    std::set<std::uint32_t> seen;
    for (std::uint32_t p = 0; p < pes; ++p)
      for (std::uint32_t t : {0u, 1u, limit / 2, limit - 1}) {
        const std::uint32_t prio = stm::dist::priority(p, t, pes);
        EXPECT_LT(prio, stm::lock_word::max_threads);
        EXPECT_TRUE(seen.insert(prio).second) << "PE " << p << " thread " << t;
      }
    EXPECT_NO_THROW(stm::dist::require_pe_threads(pes, limit));
    EXPECT_THROW(stm::dist::require_pe_threads(pes, std::uint64_t(limit) + 1), stm::usage_error);
  }
  EXPECT_THROW(stm::dist::require_pe_threads(0, 1), stm::usage_error);
  EXPECT_THROW(stm::dist::require_pe_threads(stm::dist::max_pes + 1, 1), stm::usage_error);
}

TEST(DistBankConfig, BadConfigurationsAreRefused) {
  stm::workloads::dist_bank::config c;
  c.npes = 3;
  c.accounts = 100;  // not a multiple of 3
  EXPECT_THROW(stm::workloads::dist_bank::check(c), stm::usage_error);
  c.accounts = 99;
  c.cross = 101;
  EXPECT_THROW(stm::workloads::dist_bank::check(c), stm::usage_error);
  c.cross = 10;
  c.threads = stm::dist::threads_per_pe_limit(3) + 1;
  EXPECT_THROW(stm::workloads::dist_bank::check(c), stm::usage_error);
  c.threads = 4;
  EXPECT_NO_THROW(stm::workloads::dist_bank::check(c));
}

}  // namespace
