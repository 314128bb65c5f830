// SPDX-License-Identifier: Apache-2.0
// tools/stm_bench/bench.cpp - options, results and progress for workloads.
#include "bench.hpp"

#include "cmp/registry.hpp"
#include "stm/lock_table.hpp"
#include "stm/stats.hpp"
#include "stm/txtable.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <sstream>

namespace bench {

std::vector<workload>& registry() {
  static std::vector<workload> r;
  return r;
}

namespace {
std::string json_escape(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += c;
    else if (c == '\n') out += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20) out += ' ';
    else out += c;
  }
  return out + "\"";
}
std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  if (v == std::floor(v) && std::fabs(v) < 9.0e15) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}
}  // namespace

option_decl integer(const std::string& name, const std::string& dflt, std::uint64_t min, std::uint64_t max,
                    const std::string& help, std::vector<std::string> words) {
  option_decl d{name, dflt, help};
  d.kind = value_kind::integer;
  d.min = min;
  d.max = max;
  d.words = std::move(words);
  return d;
}

option_decl number(const std::string& name, const std::string& dflt, double lo, double hi, const std::string& help,
                   std::vector<std::string> words) {
  option_decl d{name, dflt, help};
  d.kind = value_kind::number;
  d.lo = lo;
  d.hi = hi;
  d.words = std::move(words);
  return d;
}

option_decl choice(const std::string& name, const std::string& dflt, std::vector<std::string> words,
                   const std::string& help) {
  option_decl d{name, dflt, help};
  d.kind = value_kind::choice;
  d.words = std::move(words);
  return d;
}

option_decl toggle(const std::string& name, const std::string& help) {
  option_decl d{name, "false", help, true};
  d.kind = value_kind::choice;
  d.words = {"true", "false"};
  return d;
}

option_decl text(const std::string& name, const std::string& dflt, const std::string& help) {
  return option_decl{name, dflt, help};
}

namespace {
constexpr std::uint64_t u32_max = 0xFFFFFFFFull;

std::vector<std::string> cm_names() {
  std::vector<std::string> out;
  std::string cur;
  for (const char* p = stm::cm::known_names;; ++p) {
    if (*p == ',' || *p == '\0') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
      if (!*p) break;
    } else if (*p != ' ') {
      cur += *p;
    }
  }
  return out;
}

// 1024 -> "2^10", 4294967295 -> "2^32-1", 1000 -> "1000".
std::string show(std::uint64_t x) {
  for (unsigned k = 10; k < 64; ++k) {
    if (x == (std::uint64_t(1) << k)) return "2^" + std::to_string(k);
    if (x == (std::uint64_t(1) << k) - 1) return "2^" + std::to_string(k) + "-1";
  }
  if (x == std::numeric_limits<std::uint64_t>::max()) return "2^64-1";
  return std::to_string(x);
}
std::string show(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}
std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& w : v) s += (s.empty() ? "" : sep) + w;
  return s;
}

// Decimal digits only: no sign, no spaces, no hex, no exponent.
bool parse_decimal(const std::string& v, std::uint64_t& x) {
  if (v.empty() || v.size() > 20) return false;
  for (char c : v)
    if (c < '0' || c > '9') return false;
  errno = 0;
  x = std::strtoull(v.c_str(), nullptr, 10);
  return errno == 0;
}

// [-]digits[.digits][e[+-]digits], at least one digit before the exponent:
// no NaN, no infinity, no hex float, no spaces.
bool parse_real(const std::string& v, double& x) {
  std::size_t i = 0, digits = 0;
  if (i < v.size() && v[i] == '-') ++i;
  while (i < v.size() && v[i] >= '0' && v[i] <= '9') ++i, ++digits;
  if (i < v.size() && v[i] == '.') {
    ++i;
    while (i < v.size() && v[i] >= '0' && v[i] <= '9') ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < v.size() && (v[i] == 'e' || v[i] == 'E')) {
    ++i;
    if (i < v.size() && (v[i] == '+' || v[i] == '-')) ++i;
    std::size_t e = 0;
    while (i < v.size() && v[i] >= '0' && v[i] <= '9') ++i, ++e;
    if (e == 0) return false;
  }
  if (i != v.size() || v.size() > 64) return false;
  x = std::strtod(v.c_str(), nullptr);
  return std::isfinite(x);
}
}  // namespace

bool is_common(const std::string& name) {
  static const char* const names[] = {"threads", "ops", "impl", "cm", "cm-wait", "cm-backoff", "seconds", "seed", "hash"};
  for (const char* n : names)
    if (name == n) return true;
  return false;
}

option_decl common(const std::string& name) {
  if (name == "threads") return common_threads(u32_max);
  if (name == "ops") return common_ops(std::uint64_t(1) << 36, "operations of a container workload");
  if (name == "impl") return text("impl", "", "implementation of a container workload (or 'all')");
  if (name == "cm") return choice("cm", "prstm", cm_names(), "contention manager of STM workloads");
  if (name == "cm-wait")
    return integer("cm-wait", "0", 0, 1000000, "contention managers: polls of a final-locked word before aborting (0: abort at once)");
  if (name == "cm-backoff")
    return integer("cm-backoff", "0", 0, 100000000,
                   "contention managers: cap in ns of the randomized back-off after an abort (0: the default of the manager)");
  if (name == "seconds") return number("seconds", "", 0.001, 3600, "timed mode: run for about this long");
  if (name == "seed") return integer("seed", "1", 0, std::numeric_limits<std::uint64_t>::max(), "seed of all generated data");
  if (name == "hash")
    return integer("hash", "1", 1, std::uint64_t(1) << 20, "lock coverage: consecutive words per lock (a power of two)");
  throw std::logic_error("bench::common: '" + name + "' is not a common option");
}

option_decl common_threads(std::uint64_t max) {
  return integer("threads", "", 1, std::min(max, u32_max), "logical threads: a number, or 'full' for full occupancy",
                 {"full"});
}

option_decl common_ops(std::uint64_t max, const std::string& help) { return integer("ops", "", 1, max, help); }

std::string describe(const option_decl& d) {
  if (d.flag) return "a switch";
  const std::string extra = d.words.empty() ? "" : " or " + join(d.words, " or ");
  switch (d.kind) {
    case value_kind::integer: return "an integer in [" + show(d.min) + ", " + show(d.max) + "]" + extra;
    case value_kind::number: return "a number in [" + show(d.lo) + ", " + show(d.hi) + "]" + extra;
    case value_kind::choice: return "one of: " + join(d.words, ", ");
    case value_kind::text: break;
  }
  return "non-empty text";
}

std::string check_value(const option_decl& d, const std::string& value) {
  const std::string bad = "--" + d.name + " must be " + describe(d) + ", got '" + value + "'";
  if (d.flag) {
    if (value == "true" || value == "false") return "";
    return "--" + d.name + " is a switch: give it alone or as --" + d.name + "=true|false, got '" + value + "'";
  }
  if (value.empty()) return "--" + d.name + " has an empty value (it must be " + describe(d) + ")";
  for (const auto& w : d.words)
    if (value == w) return "";
  switch (d.kind) {
    case value_kind::integer: {
      std::uint64_t x = 0;
      return parse_decimal(value, x) && x >= d.min && x <= d.max ? "" : bad;
    }
    case value_kind::number: {
      double x = 0;
      return parse_real(value, x) && x >= d.lo && x <= d.hi ? "" : bad;
    }
    case value_kind::choice: return bad;
    case value_kind::text: break;
  }
  if (value[0] == '-') return "--" + d.name + ": '" + value + "' looks like an option, not a value";
  for (char c : value)
    if (static_cast<unsigned char>(c) < 0x20) return "--" + d.name + ": control characters in '" + value + "'";
  return "";
}

std::array<std::uint32_t, 3> percent_mix(const std::string& name, const std::string& value) {
  std::array<std::uint32_t, 3> v{0, 0, 0};
  std::size_t part = 0, digits = 0;
  bool ok = !value.empty();
  for (char ch : value) {
    if (ch == '/') {
      ok &= digits > 0 && part < 2;
      ++part, digits = 0;
    } else if (ch >= '0' && ch <= '9' && digits < 3 && part < 3) {
      v[part] = v[part] * 10 + std::uint32_t(ch - '0');
      ++digits;
    } else {
      ok = false;
    }
  }
  if (!ok || part != 2 || digits == 0 || v[0] + v[1] + v[2] != 100)
    throw stm::usage_error("--" + name + " must be three whole percentages I/R/C summing to 100 (e.g. 20/20/60), got '" +
                           value + "'");
  return v;
}

std::uint64_t bytes(std::initializer_list<std::initializer_list<std::uint64_t>> terms) {
  constexpr std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t sum = 0;
  for (const auto& t : terms) {
    std::uint64_t p = 1;
    for (std::uint64_t f : t) p = (f != 0 && p > top / f) ? top : p * f;
    sum = sum > top - p ? top : sum + p;
  }
  return sum;
}

void options::refuse(const std::string& name, const std::string& why) const {
  if (has(name)) throw stm::usage_error("--" + name + " " + why);
}

std::uint32_t options::threads(std::uint32_t dflt) const {
  if (threads_arg.empty()) return dflt;
  if (threads_arg == "full") return full_occupancy;
  return static_cast<std::uint32_t>(std::stoull(threads_arg));  // checked by stm_bench's parser
}

std::uint64_t options::ops(std::uint64_t dflt) const {
  if (ops_arg.empty()) return dflt;
  return std::stoull(ops_arg);  // checked by stm_bench's parser
}

std::string options::get(const std::string& name) const {
  auto it = own.find(name);
  if (it == own.end()) throw stm::usage_error("internal: option --" + name + " was not declared by this workload");
  return it->second;
}

std::uint64_t options::get_u64(const std::string& name) const {
  const std::string v = get(name);
  std::uint64_t x = 0;
  if (!parse_decimal(v, x)) throw stm::usage_error("--" + name + ": '" + v + "' is not a non-negative integer");
  return x;
}

std::int64_t options::get_i64(const std::string& name) const {
  const std::string v = get(name);
  const bool neg = !v.empty() && v[0] == '-';
  std::uint64_t x = 0;
  if (!parse_decimal(neg ? v.substr(1) : v, x) || x > (neg ? std::uint64_t(1) << 63 : (std::uint64_t(1) << 63) - 1))
    throw stm::usage_error("--" + name + ": '" + v + "' is not an integer");
  return neg ? static_cast<std::int64_t>(0 - x) : static_cast<std::int64_t>(x);
}

double options::get_double(const std::string& name) const {
  const std::string v = get(name);
  double x = 0;
  if (!parse_real(v, x)) throw stm::usage_error("--" + name + ": '" + v + "' is not a number");
  return x;
}

double options::get_percent(const std::string& name) const {
  const double x = get_double(name);
  if (x < 0 || x > 100) throw stm::usage_error("--" + name + ": " + get(name) + " is outside [0, 100]");
  return x;
}

bool options::get_bool(const std::string& name) const {
  const std::string v = get(name);
  if (v == "true" || v == "1" || v == "yes" || v == "on") return true;
  if (v == "false" || v == "0" || v == "no" || v == "off") return false;
  throw stm::usage_error("--" + name + ": '" + v + "' is not true or false");
}

result& result::str(const std::string& key, const std::string& v) {
  fields.emplace_back(key, json_escape(v));
  return *this;
}
result& result::num(const std::string& key, double v) {
  fields.emplace_back(key, json_number(v));
  return *this;
}
result& result::integer(const std::string& key, std::int64_t v) {
  fields.emplace_back(key, std::to_string(v));
  return *this;
}
result& result::boolean(const std::string& key, bool v) {
  fields.emplace_back(key, v ? "true" : "false");
  return *this;
}
result& result::object(const std::string& key, const std::vector<std::pair<std::string, double>>& v) {
  std::string s = "{";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + json_escape(v[i].first) + ": " + json_number(v[i].second);
  fields.emplace_back(key, s + "}");
  return *this;
}
result& result::aborts(const std::uint64_t* by_cause) {
  std::vector<std::pair<std::string, double>> v;
  for (std::uint32_t i = 0; i < stm::num_abort_causes; ++i)
    v.emplace_back(stm::to_string(static_cast<stm::abort_cause>(i)), static_cast<double>(by_cause[i]));
  return object("aborts", v);
}
result& result::counters(const stm::tx_stats& s) {
  integer("commits", static_cast<std::int64_t>(s.commits));
  aborts(s.aborts);
  num("abort_rate", s.abort_rate());
  integer("escalations", static_cast<std::int64_t>(s.escalations));
  return integer("steals", static_cast<std::int64_t>(s.steals));
}
result& result::tuning(const stm::manager_tuning& t) {
  return integer("cm_wait", t.wait_polls).integer("cm_backoff", t.backoff_max_ns);
}
result& result::table(const stm::txtable_audit& a, const stm::tx_stats& s, std::uint64_t transactions,
                      std::uint64_t semantic_capable, std::uint32_t semantic_retries, std::uint32_t max_postpones) {
  integer("transactions", static_cast<std::int64_t>(transactions));
  integer("semantic_capable", static_cast<std::int64_t>(semantic_capable));
  integer("semantic_retries", semantic_retries).integer("max_postpones", max_postpones);
  integer("postponed_then_committed", static_cast<std::int64_t>(a.committed_after_conflict));
  integer("unresolved", static_cast<std::int64_t>(a.unresolved));
  const std::uint64_t sem = s.aborts[static_cast<std::uint32_t>(stm::abort_cause::semantic)];
  integer("semantic_conflicts", static_cast<std::int64_t>(sem));
  return integer("concurrent_aborts", static_cast<std::int64_t>(s.total_aborts() - sem));
}
result& result::measured(double done, double seconds, bool ok, const std::string& message) {
  num("seconds", seconds);
  num("throughput", seconds > 0 ? done / seconds : 0.0);
  boolean("verified", ok);
  verified = ok;
  verify_message = message;
  return *this;
}
double result::number(const std::string& key) const {
  for (const auto& f : fields)
    if (f.first == key) {
      try {
        return std::stod(f.second);
      } catch (...) {
        return 0.0;
      }
    }
  return 0.0;
}
std::string result::text(const std::string& key) const {
  for (const auto& f : fields)
    if (f.first == key) return f.second;
  return "";
}

namespace {
bool progress_off = false;
}
void quiet_progress() { progress_off = true; }

namespace {
std::vector<std::function<void()>>& main_end_hooks() {
  static std::vector<std::function<void()>> hooks;
  return hooks;
}
}  // namespace

void at_main_end(std::function<void()> f) { main_end_hooks().push_back(std::move(f)); }

int end_main(int rc) {
  auto& hooks = main_end_hooks();
  while (!hooks.empty()) {
    auto f = std::move(hooks.back());
    hooks.pop_back();
    f();
  }
  return rc;
}

void progress(const std::string& what, double fraction) {
  if (progress_off) return;
  using clock = std::chrono::steady_clock;
  static clock::time_point last = clock::now();
  const auto now = clock::now();
  if (now - last < std::chrono::seconds(1)) return;
  last = now;
  std::fprintf(stderr, "  ... %s %3.0f%%\n", what.c_str(), 100.0 * std::min(fraction, 1.0));
}

result base_result(const options& o, const std::string& impl_or_cm, std::uint32_t threads) {
  result r;
  r.str("workload", o.workload);
  r.str(o.workload == "bank" || o.workload == "vacation" || o.workload == "skiplist" || o.workload == "kmeans" ||
                o.workload == "graph" || o.workload == "array"
            ? "cm"
            : "impl",
        impl_or_cm);
  r.str("backend", stm::to_string(o.backend));
  r.str("device", o.device);
  r.integer("threads", threads);
  // What the environment changed of the lock tables' defaults (part of what
  // was run, so that an A/B's rows differ in their configuration).
  if (!stm::lock_table::admission_default()) r.boolean("admission", false);
  const stm::throttle_config t = stm::lock_table::throttle_from_environment(), d{};
  if (t.admission_patience != d.admission_patience) r.integer("admission_patience", t.admission_patience);
  if (t.admission_heat != d.admission_heat) r.integer("admission_heat", t.admission_heat);
  if (t.admission_pause_log2 != d.admission_pause_log2) r.integer("admission_pause_log2", t.admission_pause_log2);
  if (t.escalate_after != d.escalate_after) r.integer("escalate_after", t.escalate_after);
  if (t.escalate_when_free != d.escalate_when_free) r.integer("escalate_when_free", t.escalate_when_free);
  if (t.footprint_kib != d.footprint_kib) r.integer("footprint_kib", t.footprint_kib);
  if (t.footprint_min_warps != d.footprint_min_warps) r.integer("footprint_min_warps", t.footprint_min_warps);
  if (t.footprint_heat_weight != d.footprint_heat_weight) r.integer("footprint_heat_weight", t.footprint_heat_weight);
  if (t.footprint_open_warps != d.footprint_open_warps) r.integer("footprint_open_warps", t.footprint_open_warps);
  return r;
}

}  // namespace bench
