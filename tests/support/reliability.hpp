// SPDX-License-Identifier: Apache-2.0
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
//   stm_test::history_count count("treiber_stack", Exec::where, "model=stack");
//   const std::uint32_t rounds = count.rounds(150), batch = count.batch(1024);
//   for (std::uint32_t first = 0; first < rounds; first += batch) {
//     const auto v = lin::check_each(b, [&](std::uint32_t i) {   // one stm_test::verdict per history
//       return stm_test::judge("round ...: ", hs[i], lin::check(hs[i], model), first + i);
//     });
//     if (!count.checked(v)) return;  // stops at a violation; the first is reported
//   }
//
// batch(n) is 1 on the CPU (each history its own launch) and n on the GPU,
// or the value of STM_LIN_BATCH on both when it is set.
//
// Outcomes. A history is linearizable, a violation (proven not linearizable,
// or the test's own check failed), or undecided: the checker reached its
// search limit (lin::hit_search_limit), which proves nothing. Undecided
// histories are counted apart and the loop goes on; the test fails on the
// first violation, or at the end when more than 1 in 10,000 of the histories
// checked were undecided (max_undecided_per_10k): then the checker, not the
// container, needs work. checked(const std::vector<std::string>&) takes plain
// reasons (empty = passed) and counts a reason containing lin::search_limit_text
// followed by ": undecided" as undecided.
//
// When STM_LIN_DUMP_DIR names a directory, every violating or undecided
// history that came with its ops (verdict::ops, filled by judge()) is written
// there, one file each, by lin::write_history: a header with the container,
// backend, mode, round, outcome and the model spec given to the constructor,
// then one op per line with its invoke/response stamps. Re-check a file on
// the CPU with
//   STM_LIN_RECHECK=<file> lincheck_tests --gtest_filter=LinCheckRecheck.*
//
// When the object goes out of scope it prints one line
//   [ reliability ] {"container":..., "backend":..., "mode":"natural"|"perturbed",
//                    "histories":N, "violations":V, "undecided":U, "device":...}
// and appends the same object to the file named by STM_RELIABILITY_OUT, if
// set; tools/reliability_rows.py adds the commit and sums the lines up.
// violations counts the histories that failed (the loop stops at the first
// violation, or the first batch with one).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "stm/backend.hpp"
#include "support/lincheck.hpp"

namespace stm_test {

/// One history's outcome, as a lin::check_each function returns it.
struct verdict {
  verdict() = default;
  /// A plain reason: empty = passed, else a violation (or undecided when it
  /// carries the checker's search-limit text).
  explicit verdict(std::string reason)
      : why(std::move(reason)),
        undecided(why.find(std::string(lin::search_limit_text) + ": undecided") != std::string::npos) {}

  std::string why;             // empty when the history passed
  bool undecided = false;      // the search gave up: not proven wrong
  std::vector<lin::op> ops;    // the history, kept when it did not pass (for STM_LIN_DUMP_DIR)
  std::uint64_t round = 0;     // which history of the test, for the dump's name
  bool passed() const { return why.empty(); }
};

/// The verdict of `res` = lin::check(h, ...) on history `round`; `where`
/// prefixes the explanation. Keeps h when it did not pass.
inline verdict judge(const std::string& where, const std::vector<lin::op>& h, const lin::result& res,
                     std::uint64_t round) {
  verdict v;
  v.round = round;
  if (res.linearizable) return v;
  v.why = where + res.explanation;
  v.undecided = lin::hit_search_limit(res);
  v.ops = h;
  return v;
}

class history_count {
 public:
  /// Undecided histories tolerated per 10,000 checked before the test fails.
  static constexpr std::uint64_t max_undecided_per_10k = 1;

  /// `model` describes the sequential model for re-checks of dumped histories
  /// ("model=stack", "model=set initial=1,2"; see lin::write_history).
  history_count(std::string container, stm::backend where, std::string model = "")
      : container_(std::move(container)), where_(where), model_(std::move(model)) {}
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

  /// Count a batch of histories just checked. Every violation counts; the
  /// first is reported as the test's failure, with how many others failed.
  /// Undecided ones are counted, named on stdout and dumped, and the loop goes
  /// on. False when any history was a violation (stop then).
  bool checked(const std::vector<verdict>& v) {
    if (::testing::Test::HasFailure()) {  // the batch's setup failed (an EXPECT before the check)
      ++histories_;
      ++violations_;
      return false;
    }
    std::size_t failed = 0, first = v.size();
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (v[i].passed()) continue;
      dump(v[i]);
      if (v[i].undecided) {
        ++undecided_;
        std::cout << "[ undecided ] " << container_ << ": " << v[i].why.substr(0, v[i].why.find('\n')) << "\n";
        continue;
      }
      ++failed;
      if (first == v.size()) first = i;
    }
    histories_ += v.size();
    violations_ += failed;
    if (failed == 0) return true;
    ADD_FAILURE() << v[first].why
                  << (failed > 1 ? "\n(" + std::to_string(failed - 1) + " more of the " + std::to_string(v.size()) +
                                       " histories of this batch failed too)"
                                 : std::string());
    return false;
  }
  /// The same for plain reasons (empty = passed); no ops to dump.
  bool checked(const std::vector<std::string>& why) { return checked(std::vector<verdict>(why.begin(), why.end())); }

  /// Count one history just checked; false when it failed (stop then).
  bool checked() {
    ++histories_;
    if (::testing::Test::HasFailure()) {
      ++violations_;
      return false;
    }
    return true;
  }

  std::uint64_t histories() const { return histories_; }
  std::uint64_t violations() const { return violations_; }
  std::uint64_t undecided() const { return undecided_; }

  ~history_count() {
    if (::testing::Test::IsSkipped()) return;
    if (::testing::Test::HasFailure() && violations_ == 0) {  // an ASSERT left the loop before checked()
      ++histories_;
      ++violations_;
    }
    if (undecided_ * 10000 > histories_ * max_undecided_per_10k)
      ADD_FAILURE() << container_ << ": " << undecided_ << " of " << histories_
                    << " histories undecided (the checker's search limit), more than " << max_undecided_per_10k
                    << " in 10,000; re-check them (STM_LIN_DUMP_DIR, STM_LIN_RECHECK) and make the checker faster";
    std::ostringstream o;
    o << "{\"container\":\"" << container_ << "\",\"backend\":\"" << stm::to_string(where_) << "\",\"mode\":\""
      << mode() << "\",\"histories\":" << histories_ << ",\"violations\":" << violations_
      << ",\"undecided\":" << undecided_ << ",\"device\":\"" << stm::device_name(where_) << "\"}";
    std::cout << "[ reliability ] " << o.str() << "\n";
    if (const char* f = std::getenv("STM_RELIABILITY_OUT")) std::ofstream(f, std::ios::app) << o.str() << "\n";
  }

 private:
  static const char* mode() { return STM_PERTURB ? "perturbed" : "natural"; }

  /// Writes v's history to STM_LIN_DUMP_DIR, when set and v kept its ops.
  void dump(const verdict& v) const {
    const char* dir = std::getenv("STM_LIN_DUMP_DIR");
    if (!dir || !*dir || v.ops.empty()) return;
    const char* outcome = v.undecided ? "undecided" : "violation";
    std::string file = container_;  // a name like "tx_skiplist/prstm" must not open a subdirectory
    std::replace(file.begin(), file.end(), '/', '-');
    const std::string path = std::string(dir) + "/" + file + "_" + stm::to_string(where_) + "_" + mode() +
                             "_round" + std::to_string(v.round) + "_" + outcome + ".txt";
    const std::string header = model_ + " container=" + container_ + " backend=" + stm::to_string(where_) +
                               " mode=" + mode() + " round=" + std::to_string(v.round) + " outcome=" + outcome;
    try {
      lin::write_history(path, header, v.ops);
      std::cout << "[ lin dump ] " << path << "\n";
    } catch (const std::exception& e) {
      std::cout << "[ lin dump ] " << e.what() << "\n";
    }
  }

  std::string container_;
  stm::backend where_;
  std::string model_;
  std::uint64_t histories_ = 0, violations_ = 0, undecided_ = 0;
};

}  // namespace stm_test
