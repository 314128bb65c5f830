// tools/stm_bench/bench.cpp - options, results and progress for workloads.
#include "bench.hpp"

#include "stm/stats.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
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
  std::size_t pos = 0;
  unsigned long long x = 0;
  bool ok = !v.empty() && v[0] != '-';
  if (ok) {
    try {
      x = std::stoull(v, &pos);
    } catch (...) {
      ok = false;
    }
  }
  if (!ok || pos != v.size()) throw stm::usage_error("--" + name + ": '" + v + "' is not a non-negative integer");
  return x;
}

std::int64_t options::get_i64(const std::string& name) const {
  const std::string v = get(name);
  std::size_t pos = 0;
  long long x = 0;
  try {
    x = std::stoll(v, &pos);
  } catch (...) {
    pos = std::string::npos;
  }
  if (v.empty() || pos != v.size()) throw stm::usage_error("--" + name + ": '" + v + "' is not an integer");
  return x;
}

double options::get_double(const std::string& name) const {
  const std::string v = get(name);
  std::size_t pos = 0;
  double x = 0;
  try {
    x = std::stod(v, &pos);
  } catch (...) {
    pos = std::string::npos;
  }
  if (v.empty() || pos != v.size() || !std::isfinite(x)) throw stm::usage_error("--" + name + ": '" + v + "' is not a number");
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
                o.workload == "graph"
            ? "cm"
            : "impl",
        impl_or_cm);
  r.str("backend", stm::to_string(o.backend));
  r.str("device", o.device);
  r.integer("threads", threads);
  return r;
}

}  // namespace bench
