// tools/stm_bench/bench.hpp - what a workload of stm_bench provides.
//
// A workload is one file tools/stm_bench/workloads/<name>.cpp (plus, for its
// GPU side, <name>_gpu.cu) that registers itself:
//
//   static bench::registrar reg({
//     "bank", "PR-STM bank transfers (seed paper, section 4.1)",
//     {{"accounts", "2621440", "number of accounts"}, ...},   // its own options
//     validate,   // void(const bench::options&): throw stm::usage_error on bad input
//     run});      // std::vector<bench::result>(const bench::options&)
//
// Options shared by many workloads (--threads, --ops, --impl, --cm, ...) are
// common options; a workload's own options are declared as strings with a
// default and read with the typed getters below, which reject bad values with
// one clear sentence. validate() runs before any work; run() must verify the
// workload's invariant and set result::verified. stm_bench exits non-zero when
// any result is unverified.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cmp/contention_manager.hpp"
#include "stm/backend.hpp"
#include "stm/error.hpp"

namespace bench {

struct option_decl {
  std::string name;  // without the leading "--"
  std::string default_value;
  std::string help;
  bool flag = false;  // true: a switch (--name sets "true"; --name=false also works)
};

struct options {
  // common options, already parsed and checked
  std::string workload;
  stm::backend backend = stm::backend::cpu;
  std::string device;            // stm::device_name(backend)
  std::string threads_arg;       // as given: "", a number, or "full"
  std::uint32_t full_occupancy = 0;
  std::string cm = "prstm";
  std::string impl;              // "" when not given
  std::string ops_arg;           // "" when not given
  double seconds = 0.0;          // 0: not given
  std::uint64_t seed = 1;
  std::uint32_t hash = 1;        // lock coverage (words per lock)
  stm::cm::tuning tune{};        // --cm-wait, --cm-backoff
  bool quiet = false;

  // a workload's own options, as strings (default applied)
  std::map<std::string, std::string> own;

  /// --threads: "full" -> full occupancy of the backend; empty -> dflt.
  std::uint32_t threads(std::uint32_t dflt) const;
  /// --ops: empty -> dflt.
  std::uint64_t ops(std::uint64_t dflt) const;

  std::string get(const std::string& name) const;
  std::uint64_t get_u64(const std::string& name) const;       // non-negative integer
  std::int64_t get_i64(const std::string& name) const;
  double get_double(const std::string& name) const;
  /// A percentage in [0, 100].
  double get_percent(const std::string& name) const;
  bool get_bool(const std::string& name) const;                // true/false/1/0/yes/no
};

/// One measured run. Fields keep their order; values are stored JSON-encoded.
struct result {
  std::vector<std::pair<std::string, std::string>> fields;
  bool verified = false;
  std::string verify_message;  // why verification failed, or what it checked

  result& str(const std::string& key, const std::string& v);
  result& num(const std::string& key, double v);
  result& integer(const std::string& key, std::int64_t v);
  result& boolean(const std::string& key, bool v);
  result& object(const std::string& key, const std::vector<std::pair<std::string, double>>& v);
  /// "aborts": {cause: count} for the num_abort_causes counters of a run.
  result& aborts(const std::uint64_t* by_cause);
  /// The closing fields of every run: seconds, throughput (done / seconds),
  /// verified; also sets `verified` and `verify_message`.
  result& measured(double done, double seconds, bool ok, const std::string& message);
  /// Value of a numeric field (0 when absent).
  double number(const std::string& key) const;
  std::string text(const std::string& key) const;  // raw JSON text of a field
};

struct workload {
  std::string name;
  std::string help;
  std::vector<option_decl> own_options;
  std::function<void(const options&)> validate;
  std::function<std::vector<result>(const options&)> run;
};

std::vector<workload>& registry();

struct registrar {
  explicit registrar(workload w) { registry().push_back(std::move(w)); }
};

/// Progress to stderr, at most once a second (call freely from host loops).
void progress(const std::string& what, double fraction);
/// Silence progress() for the rest of the process (--quiet).
void quiet_progress();

/// Fill the fields every result carries: workload, impl or cm, backend, device, threads.
result base_result(const options& o, const std::string& impl_or_cm, std::uint32_t threads);

}  // namespace bench
