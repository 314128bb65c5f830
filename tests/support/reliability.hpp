// tests/support/reliability.hpp - how many histories each linearizability
// test checked, in which mode, and how many failed: the input of
// results/reliability.jsonl.
//
//   stm_test::history_count count("indexed_seq", Exec::where);
//   for (std::uint32_t r = 0; r < count.rounds(150); ++r) {
//     one_history(...);
//     if (!count.checked()) return;   // a failure ends the loop
//   }                                 // (an ASSERT that returns early counts too)
//
// rounds(n) is n, or the value of STM_LIN_HISTORIES when it is set (runs of
// 100,000 histories without rebuilding). Tests that record many histories in
// one launch (lin::batch_recorder) loop over batches instead:
//
//   const std::uint32_t rounds = count.rounds(150), batch = count.batch(1024);
//   for (std::uint32_t first = 0; first < rounds; first += batch) {
//     const auto why = one_batch(first, std::min(batch, rounds - first));  // lin::check_each
//     if (!count.checked(why)) return;  // every failed history counts; the first is reported
//   }
//
// batch(n) is 1 on the CPU (each history its own launch) and n on the GPU,
// or the value of STM_LIN_BATCH on both when it is set.
//
// When the object goes out of scope it prints one line
//   [ reliability ] {"container":..., "backend":..., "mode":"natural"|"perturbed",
//                    "histories":N, "violations":V, "device":...}
// and appends the same object to the file named by STM_RELIABILITY_OUT, if
// set; tools/reliability_rows.py adds the commit and sums the lines up.
// violations counts the histories that failed (the loop stops at the first
// failed history, or the first batch with one).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "stm/backend.hpp"

namespace stm_test {

class history_count {
 public:
  history_count(std::string container, stm::backend where) : container_(std::move(container)), where_(where) {}
  history_count(const history_count&) = delete;
  history_count& operator=(const history_count&) = delete;

  /// The number of histories to run: n, or STM_LIN_HISTORIES.
  static std::uint32_t rounds(std::uint32_t n) {
    if (const char* e = std::getenv("STM_LIN_HISTORIES")) {
      const unsigned long v = std::strtoul(e, nullptr, 10);
      if (v > 0 && v < 100000000ul) return static_cast<std::uint32_t>(v);
    }
    return n;
  }

  /// Histories per launch: 1 on the CPU, `gpu` on the GPU, or STM_LIN_BATCH.
  std::uint32_t batch(std::uint32_t gpu) const {
    if (const char* e = std::getenv("STM_LIN_BATCH")) {
      const unsigned long v = std::strtoul(e, nullptr, 10);
      if (v > 0 && v <= 65536ul) return static_cast<std::uint32_t>(v);
    }
    return where_ == stm::backend::gpu ? gpu : 1u;
  }

  /// Count a batch of histories just checked: why[i] is empty when history i
  /// passed, else why it failed. Every failed history counts as a violation;
  /// the first is reported as the test's failure, with how many others
  /// failed. False when any failed (stop then).
  bool checked(const std::vector<std::string>& why) {
    if (::testing::Test::HasFailure()) {  // the batch's setup failed (an EXPECT before the check)
      ++histories_;
      ++violations_;
      return false;
    }
    std::size_t failed = 0, first = why.size();
    for (std::size_t i = 0; i < why.size(); ++i)
      if (!why[i].empty()) {
        ++failed;
        if (first == why.size()) first = i;
      }
    histories_ += why.size();
    violations_ += failed;
    if (failed == 0) return true;
    ADD_FAILURE() << why[first]
                  << (failed > 1 ? "\n(" + std::to_string(failed - 1) + " more of the " + std::to_string(why.size()) +
                                       " histories of this batch failed too)"
                                 : std::string());
    return false;
  }

  /// Count one history just checked; false when it failed (stop then).
  bool checked() {
    ++histories_;
    if (::testing::Test::HasFailure()) {
      ++violations_;
      return false;
    }
    return true;
  }

  ~history_count() {
    if (::testing::Test::IsSkipped()) return;
    if (::testing::Test::HasFailure() && violations_ == 0) {  // an ASSERT left the loop before checked()
      ++histories_;
      ++violations_;
    }
    std::ostringstream o;
    o << "{\"container\":\"" << container_ << "\",\"backend\":\"" << stm::to_string(where_) << "\",\"mode\":\""
      << (STM_PERTURB ? "perturbed" : "natural") << "\",\"histories\":" << histories_
      << ",\"violations\":" << violations_ << ",\"device\":\"" << stm::device_name(where_) << "\"}";
    std::cout << "[ reliability ] " << o.str() << "\n";
    if (const char* f = std::getenv("STM_RELIABILITY_OUT")) std::ofstream(f, std::ios::app) << o.str() << "\n";
  }

 private:
  std::string container_;
  stm::backend where_;
  std::uint64_t histories_ = 0, violations_ = 0;
};

}  // namespace stm_test
