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

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "bench.hpp"
#include "stm/backend.hpp"

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


// One invocation without --sweep. dry_run: parse and validate only.
int run_once(int argc, const char* const* argv, bool dry_run, bool force_json) {
  auto& workloads = bench::registry();
  std::sort(workloads.begin(), workloads.end(), [](const auto& a, const auto& b) { return a.name < b.name; });

  CLI::App app{"stm_bench: PR-STM workloads and concurrent containers, verified after every run"};
  std::string workload = "bank", backend_arg = "auto", threads_arg, format = "table", ops_arg, impl, cm = "prstm", out;
  double seconds = 0;
  long long seed = 1, repeat = 1, warmup = 1, hash = 1, cm_wait = 0, cm_backoff = 0;
  bool list = false, quiet = false;
  app.add_option("--workload,-w", workload, "workload to run (see --list)");
  app.add_option("--backend", backend_arg, "gpu | cpu | auto (GPU when present)");
  app.add_option("--threads", threads_arg, "logical threads: a number, or 'full' for full occupancy");
  app.add_option("--seconds", seconds, "timed mode: run for about this long (workloads that support it)");
  app.add_option("--seed", seed, "seed of all generated data");
  app.add_option("--format", format, "table | json | csv");
  app.add_option("--repeat", repeat, "measured runs; the run with the median throughput is reported");
  app.add_option("--warmup", warmup, "unreported warm-up runs before the measured ones");
  app.add_option("--cm", cm, "contention manager of STM workloads");
  app.add_option("--cm-wait", cm_wait, "contention managers: polls of a final-locked word before aborting (0: abort at once)");
  app.add_option("--cm-backoff", cm_backoff, "contention managers: cap in ns of the randomized back-off after an abort (0: the default of the manager)");
  app.add_option("--impl", impl, "implementation of a container workload (or 'all')");
  app.add_option("--ops", ops_arg, "operations of a container workload");
  app.add_option("--hash", hash, "lock coverage: consecutive words per lock (a power of two)");
  app.add_option("--out", out, "also append one JSON object per result to this file");
  app.add_flag("--list", list, "list the workloads and their options");
  app.add_flag("--quiet,-q", quiet, "no configuration or progress lines");

  // Each workload's own options; a name declared by several workloads is one option.
  std::map<std::string, std::string> given;
  std::map<std::string, bool> switched;
  std::map<std::string, CLI::Option*> declared;
  for (const auto& w : workloads)
    for (const auto& d : w.own_options)
      if (!declared.count(d.name))
        declared[d.name] = d.flag ? app.add_flag("--" + d.name, switched[d.name], d.help + " [" + w.name + "]")
                                  : app.add_option("--" + d.name, given[d.name], d.help + " [" + w.name + "]");
  std::vector<std::string> sweeps;  // handled by main(); declared here for --help
  app.add_option("--sweep", sweeps, "NAME=V1,V2,...: one run per value, one JSON object per point (repeatable)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << "stm_bench: " << e.what() << "\n";
    return 2;
  }

  if (list) {
    for (const auto& w : workloads) {
      std::cout << w.name << ": " << w.help << "\n";
      for (const auto& d : w.own_options) std::cout << "    --" << d.name << " (default " << d.default_value << "): " << d.help << "\n";
    }
    return 0;
  }

  bench::options o;
  const bench::workload* chosen = nullptr;
  try {
    for (const auto& w : workloads)
      if (w.name == workload) chosen = &w;
    if (!chosen) {
      std::string known;
      for (const auto& w : workloads) known += (known.empty() ? "" : ", ") + w.name;
      throw stm::usage_error("unknown workload '" + workload + "' (known: " + known + ")");
    }
    if (format != "table" && format != "json" && format != "csv")
      throw stm::usage_error("unknown format '" + format + "' (known: table, json, csv)");
    if (repeat < 1) throw stm::usage_error("--repeat must be at least 1, got " + std::to_string(repeat));
    if (warmup < 0) throw stm::usage_error("--warmup must be at least 0, got " + std::to_string(warmup));
    if (seconds < 0) throw stm::usage_error("--seconds must not be negative");
    if (hash < 1 || hash > (1 << 20) || (hash & (hash - 1)) != 0)
      throw stm::usage_error("--hash must be a power of two between 1 and 2^20, got " + std::to_string(hash));
    if (seed < 0) throw stm::usage_error("--seed must not be negative");
    if (cm_wait < 0 || cm_wait > 1000000) throw stm::usage_error("--cm-wait must be between 0 and 1000000");
    if (cm_backoff < 0 || cm_backoff > 100000000) throw stm::usage_error("--cm-backoff must be between 0 and 100000000 ns");
    if (!threads_arg.empty() && threads_arg != "full") {
      std::size_t pos = 0;
      long long t = -1;
      try {
        t = std::stoll(threads_arg, &pos);
      } catch (...) {
        pos = 0;
      }
      if (pos != threads_arg.size() || t <= 0 || t > 0xFFFFFFFFll)
        throw stm::usage_error("--threads must be a positive number or 'full', got '" + threads_arg + "'");
    }
    if (!ops_arg.empty()) {
      std::size_t pos = 0;
      long long n = -1;
      try {
        n = std::stoll(ops_arg, &pos);
      } catch (...) {
        pos = 0;
      }
      if (pos != ops_arg.size() || n <= 0) throw stm::usage_error("--ops must be a positive number, got '" + ops_arg + "'");
    }
    for (const auto& [name, opt] : declared) {
      if (opt->count() == 0) continue;
      bool mine = false;
      for (const auto& d : chosen->own_options) mine |= d.name == name;
      if (!mine) throw stm::usage_error("--" + name + " is not an option of workload '" + workload + "'");
    }
    for (const auto& d : chosen->own_options)
      o.own[d.name] = !declared[d.name]->count() ? d.default_value : d.flag ? (switched[d.name] ? "true" : "false") : given[d.name];

    o.workload = workload;
    o.backend = stm::parse_backend(backend_arg);
    o.device = stm::device_name(o.backend);
    o.full_occupancy = stm::full_occupancy(o.backend);
    o.threads_arg = threads_arg;
    o.cm = cm;
    o.impl = impl;
    o.ops_arg = ops_arg;
    o.seconds = seconds;
    o.seed = static_cast<std::uint64_t>(seed);
    o.hash = static_cast<std::uint32_t>(hash);
    o.quiet = quiet;
    if (quiet) bench::quiet_progress();
    o.tune.wait_polls = static_cast<std::uint32_t>(cm_wait);
    o.tune.backoff_max_ns = static_cast<std::uint32_t>(cm_backoff);
    if (chosen->validate) chosen->validate(o);
  } catch (const std::exception& e) {
    std::cerr << "stm_bench: " << e.what() << "\n";
    return 2;
  }
  if (dry_run) return 0;
  if (force_json) format = "json";

  std::ostream& info = format == "table" ? std::cout : std::cerr;
  if (!quiet) {
    info << "stm_bench configuration\n"
         << "  workload   " << o.workload << "  (" << chosen->help << ")\n"
         << "  backend    " << stm::to_string(o.backend) << "  (" << o.device << ")\n"
         << "  threads    " << (threads_arg.empty() ? "workload default" : threads_arg)
         << "  (full occupancy: " << o.full_occupancy << ")\n"
         << "  cm         " << o.cm << " (wait " << o.tune.wait_polls << " polls, back-off up to " << o.tune.backoff_max_ns
         << " ns)\n"
         << "  impl       " << (impl.empty() ? "workload default" : impl) << "\n"
         << "  ops        " << (ops_arg.empty() ? "workload default" : ops_arg) << "\n"
         << "  seconds    " << (seconds > 0 ? std::to_string(seconds) : "workload default") << "\n"
         << "  hash       " << o.hash << " word(s) per lock\n"
         << "  seed       " << o.seed << "\n"
         << "  repeat     " << repeat << " measured after " << warmup << " warm-up run(s), median reported\n";
    for (const auto& [k, v] : o.own) info << "  " << k << std::string(k.size() < 10 ? 10 - k.size() : 1, ' ') << " " << v << "\n";
    info.flush();
  }

  std::vector<std::vector<bench::result>> runs;
  try {
    for (long long i = 0; i < warmup + repeat; ++i) {
      if (!quiet && warmup + repeat > 1)
        std::cerr << (i < warmup ? "warm-up run " : "measured run ") << (i < warmup ? i + 1 : i - warmup + 1) << "/"
                  << (i < warmup ? warmup : repeat) << "\n";
      auto rs = chosen->run(o);
      for (const auto& r : rs)
        if (!r.verified) {
          // Report the failing run at once: a wrong result is never averaged away.
          std::cerr << "stm_bench: verification failed: " << r.verify_message << "\n";
          if (format == "json") std::cout << json_line(r) << "\n";
          else print_table(rs, std::cout);
          return 1;
        }
      if (i >= warmup) runs.push_back(std::move(rs));
    }
  } catch (const stm::usage_error& e) {
    std::cerr << "stm_bench: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "stm_bench: error: " << e.what() << "\n";
    return 3;
  }

  // Every result carries the command that reproduces it.
  std::string command = "stm_bench";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--out" || a == "--format") {
      ++i;  // where a result is written is not part of what was measured
      continue;
    }
    command += " " + a;
  }
  for (auto& rs : runs)
    for (auto& r : rs) r.str("command", command);

  // Median by throughput, per result position (one position per impl/cm).
  std::vector<bench::result> report;
  for (std::size_t p = 0; p < runs.front().size(); ++p) {
    std::vector<const bench::result*> col;
    for (const auto& rs : runs)
      if (p < rs.size()) col.push_back(&rs[p]);
    std::sort(col.begin(), col.end(), [](auto* a, auto* b) { return a->number("throughput") < b->number("throughput"); });
    bench::result r = *col[col.size() / 2];
    r.integer("repeat", static_cast<std::int64_t>(col.size()));
    r.num("throughput_min", col.front()->number("throughput"));
    r.num("throughput_max", col.back()->number("throughput"));
    report.push_back(std::move(r));
  }

  if (format == "json")
    for (const auto& r : report) std::cout << json_line(r) << "\n";
  else if (format == "csv")
    print_csv(report, std::cout);
  else
    print_table(report, std::cout);
  if (!out.empty()) {
    std::ofstream f(out, std::ios::app);
    if (!f) {
      std::cerr << "stm_bench: cannot open --out file '" << out << "'\n";
      return 2;
    }
    for (const auto& r : report) f << json_line(r) << "\n";
  }
  return 0;
}

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
    if (name == "sweep" || name == "list" || name == "format" || name == "out")
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

int main(int argc, char** argv) {
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
  for (const auto& p : points)  // bad input of any point: before any work
    if (const int rc = call(p, true, true)) return rc;
  int worst = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    std::cerr << "sweep point " << i + 1 << "/" << points.size() << ": " << labels[i] << "\n";
    worst = std::max(worst, call(points[i], false, true));
  }
  return worst;
}
