// SPDX-License-Identifier: Apache-2.0
// tools/stm_bench/bench.hpp - what a workload of stm_bench provides.
//
// A workload is one file tools/stm_bench/workloads/<name>.cpp (plus, for its
// GPU side, <name>_gpu.cu) that registers itself:
//
//   static bench::registrar reg({
//     "bank", "PR-STM bank transfers (PR-STM paper, section 4.1)",
//     {bench::integer("accounts", "2621440", 2, 0xFFFFFFFF, "number of accounts"),   // its own options
//      bench::toggle("presort", "sort each block first"),
//      bench::common_threads(stm::lock_word::max_threads),                           // common options it uses
//      bench::common("seed"), bench::common("cm"), ...},
//     validate,    // void(const bench::options&): throw stm::usage_error on bad input
//     run,         // std::vector<bench::result>(const bench::options&)
//     estimate});  // bench::resources(const bench::options&): memory of one run
//
// Every option a workload uses is declared with what its value may be (an
// integer range, a number range, a list of words, a switch, free text);
// stm_bench checks each given value against its declaration, refuses an
// option that the chosen workload does not declare, compares estimate() with
// the memory of the machine (estimate() may throw usage_error too: it sees
// the options before validate()), then calls validate() for what depends on
// several options (and on --impl: an option that the chosen implementations
// do not use is refused there, see options::refuse), all before any work.
// --help and --list print every range. Options shared by many workloads
// (--threads, --ops, --impl, --cm, --seconds, --seed, --hash, --cm-wait,
// --cm-backoff) are common options: a workload declares the ones it uses with
// common() (the common range) or a tighter range of its own, and reads them
// from the typed fields of `options`. run() must verify the workload's
// invariant and set result::verified; stm_bench exits non-zero when any
// result is unverified.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cmp/contention_manager.hpp"
#include "stm/backend.hpp"
#include "stm/error.hpp"

namespace stm {
struct tx_stats;
struct txtable_audit;
}  // namespace stm

namespace bench {

/// What the value of an option may be.
enum class value_kind {
  text,     ///< any non-empty string (a file name, ...)
  integer,  ///< a decimal integer in [min, max], or one of `words`
  number,   ///< a decimal number in [lo, hi], or one of `words`
  choice,   ///< one of `words`
};

struct option_decl {
  std::string name;  // without the leading "--"
  std::string default_value;
  std::string help;
  bool flag = false;  // true: a switch (--name sets "true"; --name=true|false also works)
  value_kind kind = value_kind::text;
  std::uint64_t min = 0, max = 0;  // integer: inclusive range
  double lo = 0, hi = 0;           // number: inclusive range
  std::vector<std::string> words{};  // choice: the values; integer, number: words accepted besides numbers
};

/// An integer option in [min, max] (words: values accepted besides numbers, e.g. {"auto"}).
option_decl integer(const std::string& name, const std::string& dflt, std::uint64_t min, std::uint64_t max,
                    const std::string& help, std::vector<std::string> words = {});
/// A number option in [lo, hi] (decimal notation; no NaN, infinity or hex).
option_decl number(const std::string& name, const std::string& dflt, double lo, double hi, const std::string& help,
                   std::vector<std::string> words = {});
/// An option whose value is one of `words`.
option_decl choice(const std::string& name, const std::string& dflt, std::vector<std::string> words,
                   const std::string& help);
/// A switch: --name, or --name=true|false.
option_decl toggle(const std::string& name, const std::string& help);
/// Free text (non-empty when given), e.g. a file name.
option_decl text(const std::string& name, const std::string& dflt, const std::string& help);

/// Common options a workload may declare: threads, ops, impl, cm, cm-wait,
/// cm-backoff, seconds, seed, hash.
bool is_common(const std::string& name);
/// A common option with the range every workload accepts.
option_decl common(const std::string& name);
/// --threads within [1, max] (or "full"), for a workload that runs at most max threads.
option_decl common_threads(std::uint64_t max);
/// --ops within [1, max].
option_decl common_ops(std::uint64_t max, const std::string& help);
/// "integer in [1, 2^32-1] or full", "a number in [0, 100]", "one of: a, b, c", ...
std::string describe(const option_decl& d);
/// Strict check of one value against its declaration; returns the error
/// sentence ("--x: ...") or "" when the value is valid.
std::string check_value(const option_decl& d, const std::string& value);

/// A mix "I/R/C" of option --name: three whole percentages (digits only)
/// summing to 100, e.g. insert/remove/search shares; usage_error otherwise.
std::array<std::uint32_t, 3> percent_mix(const std::string& name, const std::string& value);

/// Memory one run of a configuration takes at its peak. Compared with the
/// machine before any work; all sums saturate (see bench::bytes).
struct resources {
  std::uint64_t host_bytes = 0;    ///< host memory (inputs, copies for verification, ...)
  std::uint64_t device_bytes = 0;  ///< the backend's buffers: GPU memory, or host memory on the CPU backend
  std::string lower;               ///< the option(s) to lower when it does not fit, e.g. "--accounts"
};
/// Saturating sum of products: bytes({{n, 4}, {m, 16}}) = 4n + 16m, or
/// UINT64_MAX when that overflows (a size that overflows never fits).
std::uint64_t bytes(std::initializer_list<std::initializer_list<std::uint64_t>> terms);

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
  stm::manager_tuning tune{};        // --cm-wait, --cm-backoff
  bool quiet = false;
  std::set<std::string> given;   // every option given on the command line (or by --sweep), without "--"

  /// Was --name given? (An option the chosen implementations do not use is an error.)
  bool has(const std::string& name) const { return given.count(name) > 0; }
  /// usage_error "--name <why>" when --name was given.
  void refuse(const std::string& name, const std::string& why) const;

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
  /// A run's transaction counters: "commits", "aborts" (by cause), "abort_rate", "escalations", "steals".
  result& counters(const stm::tx_stats& s);
  /// The contention manager's tuning: "cm_wait", "cm_backoff".
  result& tuning(const stm::manager_tuning& t);
  /// The transaction table's outcome (the workloads that drain one): its entries
  /// ("transactions", "semantic_capable", "postponed_then_committed", "unresolved"),
  /// its policy ("semantic_retries", "max_postpones"), and the aborts split into
  /// "semantic_conflicts" and "concurrent_aborts". With counters(): every field the
  /// table's figures are read from.
  result& table(const stm::txtable_audit& a, const stm::tx_stats& s, std::uint64_t transactions,
                std::uint64_t semantic_capable, std::uint32_t semantic_retries, std::uint32_t max_postpones);
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
  /// Memory of one run (checked against the machine before any work).
  std::function<resources(const options&)> estimate;
};

std::vector<workload>& registry();

struct registrar {
  explicit registrar(workload w) { registry().push_back(std::move(w)); }
};

/// Progress to stderr, at most once a second (call freely from host loops).
void progress(const std::string& what, double fraction);
/// Silence progress() for the rest of the process (--quiet).
void quiet_progress();

/// Run f when main returns, before the process's static destructors (last
/// registered, first run): for runtimes that must end while CUDA and their
/// own threads still run, such as NVSHMEM's, whose finalize a static
/// destructor would call in no defined order with CUDA's teardown.
void at_main_end(std::function<void()> f);
/// Main's last call: the functions of at_main_end, then rc.
int end_main(int rc);

/// Fill the fields every result carries: workload, impl or cm, backend, device, threads.
result base_result(const options& o, const std::string& impl_or_cm, std::uint32_t threads);

}  // namespace bench
