// SPDX-License-Identifier: Apache-2.0
// stm_bench - run a workload or container benchmark, verify it, report it.
//
//   stm_bench --workload bank --semantic 100
//   stm_bench --workload bank --threads full --accounts 4096 --format json --repeat 5
//   stm_bench --workload bank --sweep threads=960,1920,full --sweep presort=false,true
//   stm_bench --list
//
// --sweep NAME=V1,V2,... runs the invocation once per value of any option
// (several --sweep give their cartesian product) and writes one JSON object
// per point (per implementation) to stdout and --out; every point is validated
// before the first one runs.
#include <CLI/CLI.hpp>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "bench.hpp"
#include "stm/backend.hpp"
#include "stm/lock_table.hpp"

namespace {

void print_table(const std::vector<bench::result>& rs, std::ostream& os) {
  std::vector<std::string> keys;
  for (const auto& r : rs)
    for (const auto& f : r.fields)
      if (std::find(keys.begin(), keys.end(), f.first) == keys.end()) keys.push_back(f.first);
  // The table keeps what identifies and measures a run; every other field
  // (workload parameters, aborts by cause, ...) is listed below it, per result.
  static const char* const table_keys[] = {"workload", "cm", "impl", "mode", "backend", "threads", "accounts", "keys",
                                           "ops", "commits", "abort_rate", "seconds", "throughput", "verified"};
  std::vector<std::string> cols;
  for (const char* k : table_keys)
    if (std::find(keys.begin(), keys.end(), k) != keys.end()) cols.push_back(k);
  std::vector<std::vector<std::string>> cells;
  for (const auto& r : rs) {
    std::vector<std::string> row;
    for (const auto& k : cols) {
      std::string v = r.text(k);
      if (!v.empty() && v.front() == '"') v = v.substr(1, v.size() - 2);
      row.push_back(v);
    }
    cells.push_back(row);
  }
  std::vector<std::size_t> w(cols.size());
  for (std::size_t c = 0; c < cols.size(); ++c) {
    w[c] = cols[c].size();
    for (const auto& row : cells) w[c] = std::max(w[c], row[c].size());
  }
  auto line = [&](const std::vector<std::string>& row) {
    for (std::size_t c = 0; c < row.size(); ++c) {
      os << (c ? "  " : "") << row[c];
      if (c + 1 < row.size()) os << std::string(w[c] - row[c].size(), ' ');
    }
    os << "\n";
  };
  line(cols);
  for (const auto& row : cells) line(row);
  auto unquote = [](std::string v) { return v.size() >= 2 && v.front() == '"' ? v.substr(1, v.size() - 2) : v; };
  for (std::size_t i = 0; i < rs.size(); ++i) {
    std::string details;
    for (const auto& f : rs[i].fields)
      if (std::find(cols.begin(), cols.end(), f.first) == cols.end() && f.first != "device" && f.first != "command")
        details += (details.empty() ? "" : ", ") + f.first + " " + unquote(f.second);
    if (!details.empty()) os << (rs.size() > 1 ? "row " + std::to_string(i + 1) + ": " : "details: ") << details << "\n";
  }
  if (!rs.empty()) os << "device: " << unquote(rs.front().text("device")) << "\n";
  for (const auto& r : rs)
    if (!r.verify_message.empty()) os << (r.verified ? "verified: " : "VERIFICATION FAILED: ") << r.verify_message << "\n";
}

std::string json_line(const bench::result& r) {
  std::string s = "{";
  for (std::size_t i = 0; i < r.fields.size(); ++i)
    s += (i ? ", \"" : "\"") + r.fields[i].first + "\": " + r.fields[i].second;
  return s + "}";
}

void print_csv(const std::vector<bench::result>& rs, std::ostream& os) {
  std::vector<std::string> keys;
  for (const auto& r : rs)
    for (const auto& f : r.fields)
      if (std::find(keys.begin(), keys.end(), f.first) == keys.end()) keys.push_back(f.first);
  for (std::size_t i = 0; i < keys.size(); ++i) os << (i ? "," : "") << keys[i];
  os << "\n";
  for (const auto& r : rs) {
    for (std::size_t i = 0; i < keys.size(); ++i) {
      std::string v = r.text(keys[i]);
      if (!v.empty() && v.front() == '{') v = "\"" + std::string(v.begin(), v.end()) + "\"", std::replace(v.begin() + 1, v.end() - 1, '"', '\'');
      os << (i ? "," : "") << v;
    }
    os << "\n";
  }
}


// ---- one invocation: the command line, one validation step, the run --------

/// Print "stm_bench: <what>" as one line on stderr; returns rc.
int fail(std::string what, int rc) {
  std::replace(what.begin(), what.end(), '\n', ' ');
  std::cerr << "stm_bench: " << what << "\n";
  return rc;
}

const bench::option_decl& repeat_decl() {
  static const auto d = bench::integer("repeat", "1", 1, 1000, "measured runs; the run with the median throughput is reported");
  return d;
}
const bench::option_decl& warmup_decl() {
  static const auto d = bench::integer("warmup", "1", 0, 100, "unreported warm-up runs before the measured ones");
  return d;
}
/// Longest timed measurement of one invocation: (warm-ups + repeats) x --seconds.
constexpr double max_timed_seconds = 24 * 3600.0;
/// Share of the free memory a run may plan to take.
constexpr double memory_headroom = 0.9;

/// What the command line said, before any check.
struct invocation {
  std::string workload = "bank", backend = "auto", format = "table", repeat = "1", warmup = "1", out;
  bool list = false, quiet = false, check = false;
  std::map<std::string, std::string> values;  // common and workload options, by name
  std::map<std::string, bool> switched;       // switches
  std::map<std::string, CLI::Option*> cli;    // every common and workload option (count() > 0: given)
  CLI::Option* out_option = nullptr;
};

/// A checked configuration: everything the run needs.
struct plan {
  const bench::workload* w = nullptr;
  bench::options o;
  std::string format, out;
  std::uint64_t repeat = 1, warmup = 1;
  bool quiet = false, check = false;
  bench::resources need;
};

const bench::option_decl* decl_of(const bench::workload& w, const std::string& name) {
  for (const auto& d : w.own_options)
    if (d.name == name) return &d;
  // A workload that declares no common option accepts them all (see bench.hpp).
  if (bench::is_common(name) &&
      std::none_of(w.own_options.begin(), w.own_options.end(), [](const auto& d) { return bench::is_common(d.name); })) {
    static std::map<std::string, bench::option_decl> commons;
    if (!commons.count(name)) commons.emplace(name, bench::common(name));
    return &commons.at(name);
  }
  return nullptr;
}

std::string known_workloads() {
  std::string known;
  for (const auto& w : bench::registry()) known += (known.empty() ? "" : ", ") + w.name;
  return known;
}

/// The options of every workload (its own, and the common ones with their
/// ranges), with each range in the help text.
void declare_cli(CLI::App& app, invocation& inv) {
  const auto& workloads = bench::registry();
  app.add_option("--workload,-w", inv.workload, "workload to run: one of " + known_workloads() + " (see --list)");
  app.add_option("--backend", inv.backend, "gpu | cpu | auto (GPU when present)");
  app.add_option("--format", inv.format, "table | json | csv");
  app.add_option("--repeat", inv.repeat, repeat_decl().help + "; " + bench::describe(repeat_decl()));
  app.add_option("--warmup", inv.warmup, warmup_decl().help + "; " + bench::describe(warmup_decl()));
  inv.out_option = app.add_option("--out", inv.out, "also append one JSON object per result to this file (checked before the run)");
  // A switch is given alone or as --name=true|false (CLI11 would take any number).
  const auto switch_values = CLI::IsMember({"true", "false"});
  app.add_flag("--list", inv.list, "list the workloads and their options")->check(switch_values);
  app.add_flag("--quiet,-q", inv.quiet, "no configuration or progress lines")->check(switch_values);
  app.add_flag("--check", inv.check, "validate and print the memory estimate of the run (each sweep point); no work")
      ->check(switch_values);
  for (const char* name : {"threads", "ops", "impl", "cm", "cm-wait", "cm-backoff", "seconds", "seed", "hash"}) {
    const bench::option_decl c = bench::common(name);
    std::string help = c.help + "; " + bench::describe(c);
    for (const auto& w : workloads)
      if (const bench::option_decl* d = decl_of(w, name); d && bench::describe(*d) != bench::describe(c))
        help += " [" + w.name + ": " + bench::describe(*d) + "]";
    std::string users;
    for (const auto& w : workloads)
      if (decl_of(w, name)) users += (users.empty() ? "" : ", ") + w.name;
    if (std::string(name) == "seconds")
      help += "; (warm-ups + repeats) x seconds at most " + std::to_string(int(max_timed_seconds));
    help += users.empty() ? " [no workload]" : " {" + users + "}";
    inv.cli[name] = app.add_option(std::string("--") + name, inv.values[name], help);
  }
  // Each workload's own options; a name declared by several workloads is one option.
  for (const auto& w : workloads)
    for (const auto& d : w.own_options) {
      if (bench::is_common(d.name)) continue;
      const std::string range = " [" + w.name + ": " + bench::describe(d) + (d.flag ? "" : ", default " + (d.default_value.empty() ? std::string("none") : d.default_value)) + "]";
      if (inv.cli.count(d.name)) {
        inv.cli[d.name]->description(inv.cli[d.name]->get_description() + range);
        continue;
      }
      inv.cli[d.name] = d.flag ? app.add_flag("--" + d.name, inv.switched[d.name], d.help + range)->check(switch_values)
                               : app.add_option("--" + d.name, inv.values[d.name], d.help + range);
    }
  static std::vector<std::string> sweeps;  // handled by main(); declared here for --help
  app.add_option("--sweep", sweeps, "NAME=V1,V2,...: one run per value, one JSON object per point (repeatable); every point is validated before the first runs");
}

std::string show_bytes(std::uint64_t b) {
  if (b == std::numeric_limits<std::uint64_t>::max()) return "more than 2^64 bytes";
  char buf[48];
  if (b >= 1000000000ull) std::snprintf(buf, sizeof buf, "%.1f GB", double(b) * 1e-9);
  else if (b >= 1000000ull) std::snprintf(buf, sizeof buf, "%.1f MB", double(b) * 1e-6);
  else std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(b));
  return buf;
}

/// Host memory this process may still take: the kernel's MemAvailable,
/// lowered by an address-space or data-size limit (ulimit -v / -d).
std::uint64_t host_memory_available() {
  std::uint64_t avail = std::numeric_limits<std::uint64_t>::max();
  {
    std::ifstream mi("/proc/meminfo");
    std::string key;
    std::uint64_t kb = 0;
    std::string unit;
    bool found = false;
    while (mi >> key >> kb >> unit)
      if (key == "MemAvailable:") {
        avail = kb * 1024;
        found = true;
        break;
      }
    if (!found) {
      const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
      if (pages > 0 && page > 0) avail = std::uint64_t(pages) * std::uint64_t(page);
    }
  }
  std::uint64_t vm_pages = 0, data_pages = 0;
  {
    std::ifstream st("/proc/self/statm");
    std::uint64_t resident = 0, shared = 0, text = 0, lib = 0;
    st >> vm_pages >> resident >> shared >> text >> lib >> data_pages;
  }
  const std::uint64_t page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  auto limit = [&](int which, std::uint64_t used) {
    rlimit r{};
    if (getrlimit(which, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
      avail = std::min<std::uint64_t>(avail, r.rlim_cur > used ? r.rlim_cur - used : 0);
  };
  limit(RLIMIT_AS, vm_pages * page);
  limit(RLIMIT_DATA, data_pages * page);
  return avail;
}

/// usage_error when the estimate does not fit the machine.
void check_fits(const bench::resources& need, stm::backend where) {
  const std::string lower = need.lower.empty() ? "lower the sizes" : "lower " + need.lower;
  std::uint64_t host = need.host_bytes;
  if (where == stm::backend::cpu) host = bench::bytes({{need.host_bytes}, {need.device_bytes}});
#if STM_WITH_CUDA
  else {
    std::size_t free_bytes = 0, total_bytes = 0;
    STM_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (double(need.device_bytes) > memory_headroom * double(free_bytes))
      throw stm::usage_error("the run needs about " + show_bytes(need.device_bytes) + " of GPU memory, " +
                             show_bytes(free_bytes) + " are free: " + lower);
  }
#endif
  const std::uint64_t avail = host_memory_available();
  if (double(host) > memory_headroom * double(avail))
    throw stm::usage_error("the run needs about " + show_bytes(host) + " of host memory, " + show_bytes(avail) +
                           " are available: " + lower);
}

/// --out must be a writable file, or a new file in a writable folder.
void check_out_path(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw stm::usage_error("--out '" + path + "' is a folder");
    if (::access(path.c_str(), W_OK) != 0)
      throw stm::usage_error("--out '" + path + "' is not writable: " + std::strerror(errno));
    return;
  }
  const auto slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw stm::usage_error("--out '" + path + "': folder '" + dir + "' does not exist");
  if (::access(dir.c_str(), W_OK) != 0)
    throw stm::usage_error("--out '" + path + "': folder '" + dir + "' is not writable");
}

/// The one validation step: every value against its declaration, every given
/// option against the workload, the workload's own checks, the memory
/// estimate against the machine. Throws usage_error; allocates nothing.
plan resolve(const invocation& inv) {
  plan p;
  for (const auto& w : bench::registry())
    if (w.name == inv.workload) p.w = &w;
  if (!p.w) throw stm::usage_error("unknown workload '" + inv.workload + "' (known: " + known_workloads() + ")");
  const bench::workload& w = *p.w;
  if (inv.backend != "gpu" && inv.backend != "cpu" && inv.backend != "auto")
    throw stm::usage_error("unknown backend '" + inv.backend + "' (known: gpu, cpu, auto)");
  if (inv.format != "table" && inv.format != "json" && inv.format != "csv")
    throw stm::usage_error("unknown format '" + inv.format + "' (known: table, json, csv)");
  (void)stm::lock_table::throttle_from_environment();  // a bad STM_ADMISSION_*, STM_ESCALATE_*, STM_FOOTPRINT_*: refused here
  for (const auto* d : {&repeat_decl(), &warmup_decl()})
    if (auto e = bench::check_value(*d, d == &repeat_decl() ? inv.repeat : inv.warmup); !e.empty()) throw stm::usage_error(e);
  p.repeat = std::stoull(inv.repeat);
  p.warmup = std::stoull(inv.warmup);
  p.format = inv.format;
  p.out = inv.out;
  if (inv.out_option && inv.out_option->count() > 0 && (inv.out.empty() || inv.out[0] == '-'))
    throw stm::usage_error("--out needs a file name, got '" + inv.out + "'");
  p.quiet = inv.quiet;
  // One process per GPU (tools/multi_gpu.sh): every process reports the same
  // totals; only the first appends them to --out and shows progress.
  if (const char* rank = std::getenv("PRSTM_PE_RANK"); rank != nullptr && std::string(rank) != "0") {
    p.out.clear();
    p.quiet = true;
  }
  p.check = inv.check;

  bench::options& o = p.o;
  for (const auto& [name, opt] : inv.cli) {
    if (opt->count() == 0) continue;
    const bench::option_decl* d = decl_of(w, name);
    if (!d) throw stm::usage_error("--" + name + " is not an option of workload '" + w.name + "'");
    const std::string v = d->flag ? (inv.switched.at(name) ? "true" : "false") : inv.values.at(name);
    if (auto e = bench::check_value(*d, v); !e.empty()) throw stm::usage_error(e);
    o.given.insert(name);
  }
  auto value = [&](const std::string& name, const std::string& dflt) {
    return o.has(name) ? inv.values.at(name) : dflt;
  };
  for (const auto& d : w.own_options)
    if (!bench::is_common(d.name))
      o.own[d.name] = !o.has(d.name) ? d.default_value : d.flag ? (inv.switched.at(d.name) ? "true" : "false") : inv.values.at(d.name);
  o.workload = w.name;
  o.threads_arg = value("threads", "");
  o.ops_arg = value("ops", "");
  o.impl = value("impl", "");
  o.cm = value("cm", "prstm");
  o.tune.wait_polls = static_cast<std::uint32_t>(std::stoull(value("cm-wait", "0")));
  o.tune.backoff_max_ns = static_cast<std::uint32_t>(std::stoull(value("cm-backoff", "0")));
  o.seconds = std::stod(value("seconds", "0"));
  o.seed = std::stoull(value("seed", "1"));
  const std::uint64_t hash = std::stoull(value("hash", "1"));
  if ((hash & (hash - 1)) != 0) throw stm::usage_error("--hash must be a power of two, got " + std::to_string(hash));
  o.hash = static_cast<std::uint32_t>(hash);
  o.quiet = inv.quiet;
  if (double(p.repeat + p.warmup) * o.seconds > max_timed_seconds)
    throw stm::usage_error("(--warmup + --repeat) x --seconds is " + std::to_string(int(double(p.repeat + p.warmup) * o.seconds)) +
                           " s, above the bound of " + std::to_string(int(max_timed_seconds)) + " s");
  if (!p.out.empty()) check_out_path(p.out);

  try {
    o.backend = stm::parse_backend(inv.backend);
  } catch (const stm::usage_error& e) {  // the library speaks of its API; the option is --backend
    throw stm::usage_error("--backend " + inv.backend + ": " + e.what());
  }
  o.device = stm::device_name(o.backend);
  o.full_occupancy = stm::full_occupancy(o.backend);
  // The estimate first: validation may read input files, whose size it bounds.
  if (w.estimate) {
    p.need = w.estimate(o);
    check_fits(p.need, o.backend);
  }
  if (w.validate) w.validate(o);
  return p;
}

void print_list() {
  for (const auto& w : bench::registry()) {
    std::cout << w.name << ": " << w.help << "\n";
    for (const auto& d : w.own_options)
      std::cout << "    --" << d.name
                << (bench::is_common(d.name) ? " (common)" : d.flag ? "" : " (default " + (d.default_value.empty() ? std::string("none") : d.default_value) + ")")
                << ": " << d.help << "; " << bench::describe(d) << "\n";
    std::cout << "    memory estimate: " << (w.estimate ? "yes" : "none") << "\n";
  }
}

void print_configuration(const plan& p) {
  const bench::options& o = p.o;
  std::ostream& info = p.format == "table" ? std::cout : std::cerr;
  auto or_default = [](const std::string& v) { return v.empty() ? std::string("workload default") : v; };
  info << "stm_bench configuration\n"
       << "  workload   " << o.workload << "  (" << p.w->help << ")\n"
       << "  backend    " << stm::to_string(o.backend) << "  (" << o.device << ")\n"
       << "  threads    " << or_default(o.threads_arg) << "  (full occupancy: " << o.full_occupancy << ")\n";
  if (o.has("cm") || o.has("cm-wait") || o.has("cm-backoff") || decl_of(*p.w, "cm"))
    info << "  cm         " << o.cm << " (wait " << o.tune.wait_polls << " polls, back-off up to " << o.tune.backoff_max_ns
         << " ns)\n";
  if (decl_of(*p.w, "impl")) info << "  impl       " << or_default(o.impl) << "\n";
  if (decl_of(*p.w, "ops")) info << "  ops        " << or_default(o.ops_arg) << "\n";
  if (decl_of(*p.w, "seconds")) info << "  seconds    " << (o.seconds > 0 ? std::to_string(o.seconds) : "workload default") << "\n";
  if (decl_of(*p.w, "hash")) info << "  hash       " << o.hash << " word(s) per lock\n";
  if (decl_of(*p.w, "seed")) info << "  seed       " << o.seed << "\n";
  info << "  repeat     " << p.repeat << " measured after " << p.warmup << " warm-up run(s), median reported\n";
  for (const auto& [k, v] : o.own) info << "  " << k << std::string(k.size() < 10 ? 10 - k.size() : 1, ' ') << " " << v << "\n";
  if (p.w->estimate)
    info << "  memory     about " << show_bytes(p.need.host_bytes) << " host, " << show_bytes(p.need.device_bytes)
         << (o.backend == stm::backend::gpu ? " GPU" : " in buffers") << "\n";
  info.flush();
}

/// Warm-ups, then measured runs; returns 0, or the exit code of a failure
/// (a failed verification is reported at once: never averaged away).
int run_all(const plan& p, std::vector<std::vector<bench::result>>& runs) {
  try {
    const std::uint64_t total = p.warmup + p.repeat;
    for (std::uint64_t i = 0; i < total; ++i) {
      const bool warm = i < p.warmup;
      if (!p.quiet && total > 1)
        std::cerr << (warm ? "warm-up run " : "measured run ") << (warm ? i + 1 : i - p.warmup + 1) << "/"
                  << (warm ? p.warmup : p.repeat) << "\n";
      // wall_seconds: the whole run as the user waits for it (set-up, every launch
      // and the host work between them, verification), beside the measured
      // "seconds"; a run that returns several results (--impl all) gives each the total.
      const auto t0 = std::chrono::steady_clock::now();
      auto rs = p.w->run(p.o);
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      for (auto& r : rs) r.num("wall_seconds", wall);
      if (rs.empty()) return fail("internal: workload '" + p.w->name + "' returned no result", 3);
      for (const auto& r : rs)
        if (!r.verified) {
          std::cerr << "stm_bench: verification failed: " << r.verify_message << "\n";
          if (p.format == "json") std::cout << json_line(r) << "\n";
          else print_table(rs, std::cout);
          return 1;
        }
      if (!warm) runs.push_back(std::move(rs));
    }
  } catch (const stm::usage_error& e) {
    return fail(e.what(), 2);
  } catch (const std::exception& e) {
    return fail(std::string("error: ") + e.what(), 3);
  }
  return 0;
}

/// Median by throughput, per result position (one position per impl/cm).
std::vector<bench::result> median_report(const std::vector<std::vector<bench::result>>& runs) {
  std::vector<bench::result> report;
  for (std::size_t pos = 0; pos < runs.front().size(); ++pos) {
    std::vector<const bench::result*> col;
    for (const auto& rs : runs)
      if (pos < rs.size()) col.push_back(&rs[pos]);
    std::sort(col.begin(), col.end(), [](auto* a, auto* b) { return a->number("throughput") < b->number("throughput"); });
    bench::result r = *col[col.size() / 2];
    r.integer("repeat", static_cast<std::int64_t>(col.size()));
    r.num("throughput_min", col.front()->number("throughput"));
    r.num("throughput_max", col.back()->number("throughput"));
    report.push_back(std::move(r));
  }
  return report;
}

/// The command that reproduces a result (where it is written is not part of what was measured).
std::string reproducing_command(int argc, const char* const* argv) {
  std::string command = "stm_bench";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--out" || a == "--format") {
      ++i;
      continue;
    }
    if (a.rfind("--out=", 0) == 0 || a.rfind("--format=", 0) == 0) continue;
    command += " " + a;
  }
  return command;
}

/// stdout, then --out; a write error is reported (exit 3).
int write_report(const plan& p, const std::vector<bench::result>& report, std::ofstream& out_file) {
  if (p.format == "json")
    for (const auto& r : report) std::cout << json_line(r) << "\n";
  else if (p.format == "csv")
    print_csv(report, std::cout);
  else
    print_table(report, std::cout);
  std::cout.flush();
  if (!std::cout) return fail("cannot write the results to stdout", 3);
  if (!p.out.empty()) {
    errno = 0;
    for (const auto& r : report) out_file << json_line(r) << "\n";
    out_file.flush();
    if (!out_file)
      return fail("cannot write --out file '" + p.out + "'" + (errno ? std::string(": ") + std::strerror(errno) : ""), 3);
  }
  return 0;
}

// One invocation without --sweep. dry_run: validate only (a sweep checks
// every point first). force_json: a sweep point writes JSON.
int run_once(int argc, const char* const* argv, bool dry_run, bool force_json) {
  const auto started = std::chrono::steady_clock::now();
  auto& workloads = bench::registry();
  std::sort(workloads.begin(), workloads.end(), [](const auto& a, const auto& b) { return a.name < b.name; });

  CLI::App app{"stm_bench: PR-STM workloads and concurrent containers, verified after every run"};
  invocation inv;
  declare_cli(app, inv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    return fail(e.what(), 2);
  }
  if (inv.list) {
    print_list();
    return 0;
  }
  plan p;
  try {
    p = resolve(inv);
  } catch (const std::exception& e) {
    return fail(e.what(), 2);
  }
  if (dry_run) return 0;
  if (p.check) {
    std::cout << "ok: " << p.o.workload << " on " << stm::to_string(p.o.backend) << ": about "
              << show_bytes(p.need.host_bytes) << " of host memory, " << show_bytes(p.need.device_bytes)
              << (p.o.backend == stm::backend::gpu ? " of GPU memory" : " in buffers")
              << (p.w->estimate ? "" : " (no estimate declared)") << "\n";
    return 0;
  }
  if (force_json) p.format = "json";
  if (p.quiet) bench::quiet_progress();

  std::ofstream out_file;
  if (!p.out.empty()) {
    out_file.open(p.out, std::ios::app);
    if (!out_file) return fail("cannot open --out file '" + p.out + "': " + std::strerror(errno), 2);
  }
  if (!p.quiet) print_configuration(p);
  std::vector<std::vector<bench::result>> runs;
  if (const int rc = run_all(p, runs)) return rc;
  const std::string command = reproducing_command(argc, argv);
  for (auto& rs : runs)
    for (auto& r : rs) r.str("command", command);
  auto report = median_report(runs);
  // wall_seconds_total: the whole invocation (or sweep point) as the user
  // waits for it: validation and device set-up (the CUDA context), every
  // warm-up and measured run; "wall_seconds" is the reported run's alone.
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  for (auto& r : report) r.num("wall_seconds_total", total);
  return write_report(p, report, out_file);
}

/// Most points a --sweep may give.
constexpr std::size_t max_sweep_points = 10000;

// Splits "--sweep NAME=V1,V2" / "--sweep=NAME=V1,V2" out of args.
bool take_sweeps(std::vector<std::string>& args, std::vector<std::pair<std::string, std::vector<std::string>>>& sweeps,
                 std::string& error) {
  std::vector<std::string> rest;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string spec;
    if (args[i] == "--sweep") {
      if (i + 1 >= args.size()) return error = "--sweep needs NAME=V1,V2,...", false;
      spec = args[++i];
    } else if (args[i].rfind("--sweep=", 0) == 0) {
      spec = args[i].substr(8);
    } else {
      rest.push_back(args[i]);
      continue;
    }
    const auto eq = spec.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
      return error = "--sweep '" + spec + "' is not NAME=V1,V2,...", false;
    std::string name = spec.substr(0, eq);
    if (name.rfind("--", 0) == 0) name = name.substr(2);
    if (name == "sweep" || name == "list" || name == "format" || name == "out" || name == "check" || name == "help")
      return error = "--sweep cannot vary --" + name, false;
    std::vector<std::string> values;
    std::string v;
    for (char ch : spec.substr(eq + 1) + ",") {
      if (ch != ',') {
        v += ch;
        continue;
      }
      if (v.empty()) return error = "--sweep '" + spec + "' has an empty value", false;
      values.push_back(v);
      v.clear();
    }
    for (const auto& s : sweeps)
      if (s.first == name) return error = "--sweep " + name + " is given twice", false;
    sweeps.emplace_back(name, values);
  }
  args = rest;
  return true;
}

// args without every occurrence of --name (and its value, unless it is a switch or given as --name=v).
std::vector<std::string> without_option(const std::vector<std::string>& args, const std::string& name, bool is_flag) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--" + name) {
      if (!is_flag) ++i;
      continue;
    }
    if (args[i].rfind("--" + name + "=", 0) == 0) continue;
    out.push_back(args[i]);
  }
  return out;
}

}  // namespace

static int run_main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::vector<std::pair<std::string, std::vector<std::string>>> sweeps;
  std::string error;
  if (!take_sweeps(args, sweeps, error)) {
    std::cerr << "stm_bench: " << error << "\n";
    return 2;
  }
  auto call = [&](const std::vector<std::string>& a, bool dry, bool json) {
    std::vector<const char*> v{argv[0]};
    for (const auto& s : a) v.push_back(s.c_str());
    return run_once(static_cast<int>(v.size()), v.data(), dry, json);
  };
  if (sweeps.empty()) return call(args, false, false);

  std::set<std::string> flags;
  for (const auto& w : bench::registry())
    for (const auto& d : w.own_options)
      if (d.flag) flags.insert(d.name);
  std::size_t count = 1;
  for (const auto& sw : sweeps) count = count > max_sweep_points ? count : count * sw.second.size();
  if (count > max_sweep_points)
    return fail("--sweep gives more than " + std::to_string(max_sweep_points) + " points", 2);
  // Cartesian product of the sweeps, first sweep outermost.
  std::vector<std::vector<std::string>> points{args};
  std::vector<std::string> labels{""};
  for (const auto& [name, values] : sweeps) {
    std::vector<std::vector<std::string>> next;
    std::vector<std::string> next_labels;
    for (std::size_t p = 0; p < points.size(); ++p)
      for (const auto& v : values) {
        auto a = without_option(points[p], name, flags.count(name) > 0);
        a.push_back("--" + name + "=" + v);
        next.push_back(std::move(a));
        next_labels.push_back(labels[p] + (labels[p].empty() ? "" : " ") + name + "=" + v);
      }
    points = std::move(next);
    labels = std::move(next_labels);
  }
  // Bad input of the command as given (a value a sweep replaces included) or
  // of any point: refused before any work.
  if (const int rc = call(args, true, true)) return rc;
  for (const auto& p : points)
    if (const int rc = call(p, true, true)) return rc;
  int worst = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    std::cerr << "sweep point " << i + 1 << "/" << points.size() << ": " << labels[i] << "\n";
    worst = std::max(worst, call(points[i], false, true));
  }
  return worst;
}

int main(int argc, char** argv) { return bench::end_main(run_main(argc, argv)); }
