// SPDX-License-Identifier: Apache-2.0
// stm_bench on bad input, as a careless or hostile user would give it: every
// case is refused up front with exit code 2, exactly one line on stderr,
// nothing on stdout, within a bounded time (one case or more per option, and
// per class: crashes, runs without end, memory, silently wrong values,
// output). A time-boxed fuzzer of option strings asserts the same contract
// for everything --check refuses, and that nothing crashes or hangs. The
// binary under test is this build's stm_bench; the backend comes from
// STM_BENCH_BACKEND (default auto: the GPU where the build and the machine
// have one).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#ifndef STM_BENCH_PATH
#error "STM_BENCH_PATH must name the stm_bench binary"
#endif

namespace {

struct outcome {
  int rc = -1;       // exit code, or -1 when killed by a signal
  int signal = 0;    // the signal that ended it
  bool timed_out = false;
  std::string out, err;
  double seconds = 0;
  long max_rss_kb = 0;
};

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string backend() {
  const char* b = std::getenv("STM_BENCH_BACKEND");
  return b && *b ? b : "auto";
}

double case_bound() {
  const char* s = std::getenv("STM_BENCH_CASE_SECONDS");
  return s && *s ? std::atof(s) : 10.0;
}

/// Runs stm_bench with args (plus --backend unless given), killed after limit
/// seconds; address_space: an address-space limit (ulimit -v) in bytes, 0: none.
outcome run(std::vector<std::string> args, double limit, std::uint64_t address_space = 0) {
  bool has_backend = false;
  for (const auto& a : args) has_backend |= a.rfind("--backend", 0) == 0;
  if (!has_backend) args.insert(args.begin(), {"--backend", backend()});
  char out_path[] = "/tmp/stm_bench_out_XXXXXX", err_path[] = "/tmp/stm_bench_err_XXXXXX";
  const int out_fd = mkstemp(out_path), err_fd = mkstemp(err_path);
  outcome o;
  if (out_fd < 0 || err_fd < 0) {
    ADD_FAILURE() << "mkstemp failed";
    return o;
  }
  std::vector<char*> argv{const_cast<char*>(STM_BENCH_PATH)};
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    const int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) dup2(null_fd, 0);
    if (address_space) {
      const rlimit r{address_space, address_space};
      setrlimit(RLIMIT_AS, &r);
    }
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(out_fd);
  close(err_fd);
  int status = 0;
  rusage ru{};
  for (;;) {
    const pid_t r = wait4(pid, &status, WNOHANG, &ru);
    if (r == pid) break;
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > limit) {
      o.timed_out = true;
      kill(pid, SIGKILL);
      wait4(pid, &status, 0, &ru);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  o.max_rss_kb = ru.ru_maxrss;
  if (WIFEXITED(status)) o.rc = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) o.signal = WTERMSIG(status);
  o.out = slurp(out_path);
  o.err = slurp(err_path);
  unlink(out_path);
  unlink(err_path);
  return o;
}

std::string show(const std::vector<std::string>& args) {
  std::string s = "stm_bench";
  for (const auto& a : args) s += " '" + a + "'";
  return s;
}

std::size_t lines(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

/// The option names in --help ("--name"), --help itself left out.
std::vector<std::string> option_names(const std::string& help) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (std::size_t at = help.find("--"); at != std::string::npos; at = help.find("--", at + 2)) {
    std::size_t end = at + 2;
    while (end < help.size() && (std::isalnum(static_cast<unsigned char>(help[end])) || help[end] == '-')) ++end;
    const std::string name = help.substr(at, end - at);
    if (name.size() > 3 && std::isalpha(static_cast<unsigned char>(name[2])) && name != "--help" && seen.insert(name).second)
      names.push_back(name);
  }
  return names;
}

/// The contract for bad input: exit 2, one line on stderr, nothing on stdout, in time.
void expect_refused(const std::vector<std::string>& args, const outcome& o) {
  EXPECT_FALSE(o.timed_out) << show(args) << ": still running after " << o.seconds << " s";
  EXPECT_EQ(o.signal, 0) << show(args) << ": killed by signal " << o.signal << "; stderr: " << o.err;
  EXPECT_EQ(o.rc, 2) << show(args) << "; stderr: " << o.err << "; stdout: " << o.out.substr(0, 400);
  EXPECT_EQ(lines(o.err), 1u) << show(args) << "; stderr: " << o.err;
  EXPECT_EQ(o.err.rfind("stm_bench: ", 0), 0u) << show(args) << "; stderr: " << o.err;
  EXPECT_TRUE(o.out.empty()) << show(args) << "; stdout: " << o.out.substr(0, 400);
  EXPECT_LT(o.seconds, case_bound()) << show(args);
}

using args_t = std::vector<std::string>;

// One or more cases per option and per class of the bad-input issue. Every
// case is invalid on both backends.
const std::vector<args_t>& table() {
  static const std::vector<args_t> t = {
      // --workload, --backend, --format, --list, --quiet, --check, --help
      {"--workload", "no_such_workload"},
      {"--workload", ""},
      {"--workload"},
      {"--backend", "tpu"},
      {"--backend", ""},
      {"--format", "xml"},
      {"--list=maybe"},
      {"--quiet=2"},
      {"--workload", "stack", "--impl", "-1"},
      {"--out", "--quiet"},
      {"--check=perhaps"},
      {"stray-positional"},
      {"--no-such-option"},
      {"--threads", "4", "--threads", "8"},  // given twice: ambiguous
      // --threads
      {"--threads", "0"},
      {"--threads", "-1"},
      {"--threads", ""},
      {"--threads", "4294967296"},
      {"--threads", "0x10"},
      {"--threads", "8.5"},
      {"--threads", " 8"},
      {"--threads", "--quiet"},
      {"--threads", "524289"},  // bank: above the 19-bit priorities
      {"--workload", "queue", "--threads", "4294967295"},
      // --seconds: runs without end, NaN, infinity, negative, unused
      {"--seconds", "1e30"},
      {"--seconds", "inf"},
      {"--seconds", "nan"},
      {"--seconds", "-1"},
      {"--seconds", "0"},
      {"--seconds", "0x1p3"},
      {"--seconds", "3600", "--repeat", "30"},  // (warm-ups + repeats) x seconds above a day
      {"--workload", "stack", "--seconds", "1"},
      {"--workload", "queue", "--seconds", "1"},
      {"--workload", "list", "--seconds", "1"},
      // --repeat, --warmup: the overflowing sum that crashed, and runs without end
      {"--repeat", "9223372036854775807", "--warmup", "9223372036854775807"},
      {"--repeat", "1000000000"},
      {"--warmup", "1000000000"},
      {"--repeat", "0"},
      {"--repeat", ""},
      {"--warmup", "-1"},
      {"--warmup", "1.5"},
      // --seed: empty, negative, truncated, out of range
      {"--seed", ""},
      {"--seed", "-1"},
      {"--seed", "1.5"},
      {"--seed", "18446744073709551616"},
      {"--seed", "1e3"},
      {"--workload", "queue", "--seed", "7"},
      // --cm, --cm-wait, --cm-backoff
      {"--cm", "nope"},
      {"--cm", ""},
      {"--cm-wait", "-1"},
      {"--cm-wait", "1000001"},
      {"--cm-backoff", "100000001"},
      {"--cm-backoff", "1e3"},
      {"--workload", "stack", "--impl", "scan", "--cm", "prstm"},
      {"--workload", "queue", "--impl", "ticket", "--cm", "prstm"},
      {"--workload", "list", "--impl", "harris", "--cm", "prstm"},
      {"--workload", "list", "--impl", "bucketed", "--one-shot", "tx"},  // the tx set's only
      {"--workload", "list", "--one-shot", "fast"},
      {"--workload", "skiplist", "--impl", "native", "--one-shot", "direct"},
      {"--workload", "skiplist", "--one-shot", ""},
      {"--workload", "stack", "--cm-wait", "5"},
      // --impl
      {"--workload", "stack", "--impl", ""},
      {"--workload", "stack", "--impl", "nope"},
      {"--workload", "queue", "--impl", "all2"},
      {"--workload", "list", "--impl", "indexed"},  // only for the seed replay
      {"--impl", "locks"},                          // bank: tx, native or all
      // --ops
      {"--ops", "5"},  // bank has no --ops
      {"--workload", "stack", "--ops", "0"},
      {"--workload", "stack", "--ops", "0x10"},
      {"--workload", "stack", "--ops", "4294967295"},
      {"--workload", "stack", "--ops", "10", "--threads", "64"},  // more threads than operations
      {"--workload", "queue", "--ops", "3", "--threads", "8"},    // would truncate to 0 per thread
      {"--workload", "queue", "--ops", "100", "--per-thread", "5"},
      {"--workload", "list", "--ops", "2147483649"},
      // --hash
      {"--hash", "3"},
      {"--hash", "0"},
      {"--hash", "2097152"},
      {"--workload", "stack", "--hash", "2"},
      // --out: checked before the run
      {"--out", "/nonexistent-folder/results.jsonl"},
      {"--out", "/"},
      {"--out", ""},
      {"--out", "/dev/null/results.jsonl"},
      // --sweep: validated after substitution; the value it replaces too
      {"--sweep", "threads=8,0"},
      {"--sweep", "semantic=0,150"},
      {"--sweep", "repeat=1,1000000000"},
      {"--sweep", "seconds=1,inf"},
      {"--sweep", "threads"},
      {"--sweep", "threads="},
      {"--sweep", "threads=8,,16"},
      {"--sweep", "out=a,b"},
      {"--sweep", "threads=8", "--sweep", "threads=16"},
      {"--threads", "0", "--sweep", "threads=8,16"},
      {"--sweep", "threads=1,2,3,4,5,6,7,8,9,10", "--sweep", "tpt=1,2,3,4,5,6,7,8,9,10", "--sweep",
       "semantic=1,2,3,4,5,6,7,8,9,10", "--sweep", "read-only=1,2,3,4,5,6,7,8,9,10,11"},
      {"--sweep", "nosuch=1,2"},
      {"--sweep"},
      // bank: --accounts, --tpt, --semantic, --read-only, --presort, --max-postpones, --lock-spread, --driver, --opaque, --clock,
      // --read-all, --audit-size
      {"--accounts", "0"},
      {"--accounts", "1"},
      {"--accounts", "4294967296"},
      {"--accounts", "4294967295", "--lock-spread", "32"},  // 566 GB of balances and lock words: the memory estimate
      {"--accounts", ""},
      {"--tpt", "0"},
      {"--tpt", "1000001"},
      {"--tpt", "1000000", "--threads", "524288"},  // threads x tpt above 2^32
      {"--semantic", "150"},
      {"--semantic", "nan"},
      {"--semantic", ""},
      {"--read-only", "-1"},
      {"--read-only", "1e400"},
      {"--presort=maybe"},
      {"--max-postpones", "0"},
      {"--max-postpones", "99999999999"},
      {"--lock-spread", "3"},
      {"--lock-spread", "64"},
      {"--lock-spread", "many"},
      {"--driver", "nope"},
      {"--driver", ""},
      {"--opaque=maybe"},
      {"--clock=maybe"},
      {"--read-all", "120"},
      {"--read-all", "-1"},
      {"--read-all", ""},
      {"--read-all", "1", "--semantic", "10"},         // audits check constant group totals
      {"--read-all", "1", "--driver", "loop"},         // audits run under the table driver only
      {"--read-all", "1", "--driver", "for"},
      {"--read-all", "1", "--audit-size", "1000"},     // does not divide the accounts
      {"--read-all", "1", "--audit-size", "1024", "--cm", "gpustm"},  // beyond gpustm's lock log
      {"--audit-size", "1"},
      {"--audit-size", "8192"},
      {"--audit-size", "x"},
      {"--workload", "stack", "--accounts", "100"},
      // bank --pes N --cross P: the partitioned bank
      {"--pes", "0"},
      {"--pes", "-1"},
      {"--pes", "1025"},
      {"--pes", "two"},
      {"--pes", ""},
      {"--pes", "2", "--cross", "101"},
      {"--pes", "2", "--cross", "-1"},
      {"--pes", "2", "--cross", "nan"},
      {"--cross", "10"},                                   // --cross without --pes
      {"--pes", "3", "--accounts", "100"},                 // not a multiple of the PEs
      {"--pes", "4", "--threads", "131073"},               // above 2^19 / 4 priorities per PE
      {"--pes", "2", "--semantic", "10"},                  // options of the table bank only
      {"--pes", "2", "--driver", "loop"},
      {"--pes", "2", "--seconds", "1"},
      {"--pes", "2", "--cm", "gpustm"},                    // PR-STM's rule only
      {"--workload", "stack", "--pes", "2"},               // --pes with another workload
      {"--workload", "queue", "--cross", "10"},
      // queue: --mode, --capacity, --per-thread
      {"--workload", "queue", "--mode", "lifo"},
      {"--workload", "queue", "--mode", "prodcons", "--threads", "6"},
      {"--workload", "queue", "--capacity", "0"},
      {"--workload", "queue", "--capacity", "1000"},  // ticket: a power of two
      {"--workload", "queue", "--impl", "ms", "--capacity", "1073741825"},
      {"--workload", "queue", "--per-thread", "0"},
      {"--workload", "queue", "--per-thread", "4294967296"},
      {"--workload", "queue", "--per-thread", "4294967295", "--threads", "64"},  // the recorded items: memory
      {"--workload", "bank", "--mode", "matched"},
      // stack: --push-ratio, --prefill, --capacity, --shards, --elim-slots, --offer-ns
      {"--workload", "stack", "--push-ratio", "101"},
      {"--workload", "stack", "--push-ratio", "50.5"},
      {"--workload", "stack", "--prefill", "-3"},
      {"--workload", "stack", "--prefill", "100", "--capacity", "10"},
      {"--workload", "stack", "--capacity", "2147483649"},
      {"--workload", "stack", "--capacity", "0"},
      {"--workload", "stack", "--shards", "0"},
      {"--workload", "stack", "--shards", "16777217"},
      {"--workload", "stack", "--impl", "scan", "--shards", "8"},
      {"--workload", "stack", "--impl", "sharded", "--shards", "2048", "--ops", "100"},  // more shards than cells
      {"--workload", "stack", "--elim-slots", "1025"},
      {"--workload", "stack", "--impl", "sharded", "--elim-slots", "4"},
      {"--workload", "stack", "--offer-ns", "100000001"},
      {"--workload", "stack", "--impl", "tx", "--offer-ns", "10"},
      // list: --keys, --mix, --nodes-file, --ops-file
      {"--workload", "list", "--keys", "0"},
      {"--workload", "list", "--keys", "67108865"},
      {"--workload", "list", "--keys", "67108864", "--impl", "harris"},  // the plain list's work is quadratic
      {"--workload", "list", "--mix", "-10/10/100"},
      {"--workload", "list", "--mix", "20/20/61"},
      {"--workload", "list", "--mix", "20/20"},
      {"--workload", "list", "--mix", "20/20/60/0"},
      {"--workload", "list", "--mix", "4294967296/0/0"},
      {"--workload", "list", "--mix", ""},
      {"--workload", "list", "--nodes-file", "/dev/zero", "--ops-file", "/dev/zero"},
      {"--workload", "list", "--nodes-file", "/nonexistent-file", "--ops-file", "/nonexistent-file"},
      {"--workload", "list", "--nodes-file", "/"},
      {"--workload", "list", "--ops-file", ""},
      {"--workload", "list", "--nodes-file", "/etc/hostname", "--ops-file", "/etc/hostname", "--keys", "10"},
      {"--workload", "list", "--nodes-file", "/etc/hostname", "--ops-file", "/etc/hostname"},  // not a seed file
      // vacation: --preset, --relations, --customers, --queries, --query-range, --user, --units, --list-cap,
      // --spacing (and its own --tpt, --semantic, --read-only, --presort, --max-postpones, --priority, --impl)
      {"--workload", "vacation", "--preset", "medium"},
      {"--workload", "vacation", "--preset", ""},
      {"--workload", "vacation", "--relations", "0"},
      {"--workload", "vacation", "--relations", "16777217"},
      {"--workload", "vacation", "--customers", "many"},
      {"--workload", "vacation", "--customers", "0"},
      {"--workload", "vacation", "--queries", "17"},
      {"--workload", "vacation", "--query-range", "0"},
      {"--workload", "vacation", "--user", "101"},
      {"--workload", "vacation", "--units", "1000001"},
      {"--workload", "vacation", "--list-cap", "16"},
      {"--workload", "vacation", "--spacing", "6"},  // not a power of two
      {"--workload", "vacation", "--spacing", "8192"},
      {"--workload", "vacation", "--tpt", "4097"},
      {"--workload", "vacation", "--semantic", "50", "--read-only", "100"},  // no update entries for the pairs
      {"--workload", "vacation", "--presort=2"},
      {"--workload", "vacation", "--max-postpones", "0"},
      {"--workload", "vacation", "--impl", "stm"},
      {"--workload", "vacation", "--impl", "native", "--cm", "gpustm"},
      {"--workload", "vacation", "--impl", "native", "--hash", "4"},
      {"--workload", "vacation", "--ops", "10"},
      {"--workload", "vacation", "--relations", "16777216", "--customers", "16777216", "--spacing", "4096"},  // 824 GB
      {"--workload", "vacation", "--relations", "4194304", "--spacing", "256"},  // above 2^31 words of tables
      {"--workload", "vacation", "--tpt", "1", "--semantic", "50"},            // a pair needs two update entries
      {"--workload", "vacation", "--priority", "age"},
      {"--workload", "vacation", "--priority", ""},
      {"--workload", "vacation", "--cm", "backoff", "--priority", "aging"},  // the aging rule is prstm's
      {"--workload", "vacation", "--impl", "native", "--priority", "aging"},
      {"--workload", "vacation", "--impl", "native", "--priority", "tid"},  // the native baseline has no priorities
      // kmeans: --points, --clusters, --iterations, --block
      {"--workload", "kmeans", "--impl", "tx-block", "--block", "100"},  // not a multiple of 32
      {"--workload", "kmeans", "--impl", "tx-block", "--block", "0"},
      {"--workload", "kmeans", "--impl", "native", "--block", "1024"},  // only tx-block aggregates by blocks
      {"--workload", "kmeans", "--points", "0"},
      {"--workload", "kmeans", "--points", "4294967296"},
      {"--workload", "kmeans", "--points", "10", "--clusters", "11"},  // the first K points are the centres
      {"--workload", "kmeans", "--clusters", "0"},
      {"--workload", "kmeans", "--clusters", "65"},
      {"--workload", "kmeans", "--iterations", "0"},
      {"--workload", "kmeans", "--iterations", "1000001"},
      {"--workload", "kmeans", "--impl", "atomic"},
      {"--workload", "kmeans", "--impl", "native", "--cm", "backoff"},
      {"--workload", "kmeans", "--impl", "native", "--cm-wait", "4"},
      {"--workload", "kmeans", "--threads", "600000", "--impl", "tx"},  // above the 19-bit priorities
      {"--workload", "kmeans", "--seconds", "1"},
      // graph: --vertices, --edges, --graph, --max-value
      {"--workload", "graph", "--vertices", "0"},
      {"--workload", "graph", "--vertices", "2147483649"},
      {"--workload", "graph", "--edges", "4294967296"},
      {"--workload", "graph", "--graph", "no_such_file_or_shape"},
      {"--workload", "graph", "--graph", ""},
      {"--workload", "graph", "--graph", "/"},
      {"--workload", "graph", "--graph", "/etc/hostname"},  // not an edge list
      {"--workload", "graph", "--graph", "/dev/null", "--vertices", "10"},  // a file gives its own size
      {"--workload", "graph", "--max-value", "0"},
      {"--workload", "graph", "--max-value", "2147483648"},
      {"--workload", "graph", "--impl", "tx-aggregated"},
      {"--workload", "graph", "--impl", "native", "--cm-backoff", "100"},
      {"--workload", "graph", "--threads", "600000", "--impl", "tx"},
      {"--workload", "graph", "--points", "10"},
      // skiplist: --keys, --range, --levels, --mix, --read-only, --pool, --priority, the common options it declares
      {"--workload", "skiplist", "--keys", "0"},
      {"--workload", "skiplist", "--keys", "268435457"},
      {"--workload", "skiplist", "--keys", "200000000"},  // --range auto: 2 x keys above 2^28
      {"--workload", "skiplist", "--range", "10"},         // fewer than --keys
      {"--workload", "skiplist", "--range", "268435457"},
      {"--workload", "skiplist", "--range", "0x100"},
      {"--workload", "skiplist", "--levels", "0"},
      {"--workload", "skiplist", "--levels", "17"},
      {"--workload", "skiplist", "--levels", "1.5"},
      {"--workload", "skiplist", "--mix", "50/40/0"},
      {"--workload", "skiplist", "--mix", "50/50"},
      {"--workload", "skiplist", "--mix", "+50/50/0"},
      {"--workload", "skiplist", "--mix", ""},
      {"--workload", "skiplist", "--read-only", "150"},
      {"--workload", "skiplist", "--read-only", "nan"},
      {"--workload", "skiplist", "--read-only", "50", "--mix", "0/0/100"},  // nothing to split
      {"--workload", "skiplist", "--priority", "age"},
      {"--workload", "skiplist", "--map=maybe"},
      {"--workload", "bank", "--priority", "aging"},  // a workload without PR-STM priorities to choose
      {"--workload", "skiplist", "--cm", "gpustm", "--priority", "aging"},  // the aging rule is prstm's
      {"--workload", "skiplist", "--impl", "native", "--priority", "aging"},
      {"--workload", "skiplist", "--pool", "0"},
      {"--workload", "skiplist", "--pool", "10"},  // below --keys
      {"--workload", "skiplist", "--pool", "1073741822"},
      {"--workload", "skiplist", "--pool", "1073741821", "--levels", "16"},  // the memory estimate
      {"--workload", "skiplist", "--ops", "0"},
      {"--workload", "skiplist", "--ops", "2147483649"},
      {"--workload", "skiplist", "--ops", "2147483648", "--keys", "1000"},  // the automatic pool: above 2^30 nodes
      {"--workload", "skiplist", "--threads", "524289"},
      {"--workload", "skiplist", "--impl", "harris"},
      {"--workload", "skiplist", "--impl", ""},
      {"--workload", "skiplist", "--cm", "nope"},
      {"--workload", "skiplist", "--impl", "native", "--cm", "prstm"},
      {"--workload", "skiplist", "--impl", "native", "--cm-wait", "5"},
      {"--workload", "skiplist", "--impl", "native", "--cm-backoff", "5"},
      {"--workload", "skiplist", "--impl", "native", "--hash", "2"},
      {"--workload", "skiplist", "--hash", "3"},
      {"--workload", "skiplist", "--seconds", "0"},
      {"--workload", "skiplist", "--seed", "-1"},
      {"--workload", "skiplist", "--accounts", "100"},  // bank's option
      // array: --words, --reads, --writes, --read-only, --validation
      {"--workload", "array", "--words", "0"},
      {"--workload", "array", "--words", "2147483649"},
      {"--workload", "array", "--words", "8", "--reads", "16"},  // a word per stratum
      {"--workload", "array", "--reads", "0"},
      {"--workload", "array", "--reads", "257"},
      {"--workload", "array", "--writes", "3"},  // even: units move in pairs
      {"--workload", "array", "--reads", "2", "--writes", "4"},
      {"--workload", "array", "--read-only", "101"},
      {"--workload", "array", "--validation", "lazy"},
      {"--workload", "array", "--impl", "native", "--validation", "commit"},
      {"--workload", "array", "--impl", "native", "--cm", "backoff"},
      {"--workload", "array", "--ops", "0"},
      {"--workload", "array", "--keys", "10"},  // the skiplist's option
  };
  return t;
}

class bad_input : public ::testing::TestWithParam<std::size_t> {};

TEST_P(bad_input, refused_with_one_line_and_exit_2) {
  const args_t& args = table()[GetParam()];
  expect_refused(args, run(args, case_bound() * 3));
}

INSTANTIATE_TEST_SUITE_P(table, bad_input, ::testing::Range<std::size_t>(0, table().size()));

// Every option in --help appears in at least one case of the table.
TEST(bad_input_table, covers_every_option) {
  const outcome help = run({"--help"}, 60);
  ASSERT_EQ(help.rc, 0) << help.err;
  const std::vector<std::string> options = option_names(help.out);
  ASSERT_GT(options.size(), 20u) << help.out;
  for (const auto& name : options) {
    bool covered = false;
    for (const auto& c : table())
      for (const auto& a : c) covered |= a == name || a.rfind(name + "=", 0) == 0;
    EXPECT_TRUE(covered) << name << " has no case in the bad-input table";
  }
}

// Every workload declares its memory estimate (stm_bench --list says so).
TEST(bad_input_table, every_workload_estimates_its_memory) {
  const outcome list = run({"--list"}, 60);
  ASSERT_EQ(list.rc, 0) << list.err;
  EXPECT_EQ(list.out.find("memory estimate: none"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("memory estimate: yes"), std::string::npos) << list.out;
}

// A write error of --out after the run: reported on one line, exit code 3.
TEST(bad_input_output, write_error_is_reported) {
  if (access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no /dev/full on this system";
  const args_t args = {"--accounts", "1024", "--threads", "8", "--tpt", "8", "--warmup", "0", "-q", "--format", "json",
                       "--out", "/dev/full"};
  const outcome o = run(args, 120);
  EXPECT_EQ(o.rc, 3) << o.err;
  EXPECT_EQ(lines(o.err), 1u) << o.err;
  EXPECT_NE(o.err.find("/dev/full"), std::string::npos) << o.err;
}

// The CPU backend cannot start every thread of a blocking launch (an
// address-space limit leaves no room for their stacks): the threads already
// started are joined and the run ends with one clear line and exit code 3,
// neither a crash nor a hang.
TEST(bad_input_output, thread_creation_failure_is_reported) {
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "a sanitizer reserves more address space than the limit";
#endif
#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
  GTEST_SKIP() << "a sanitizer reserves more address space than the limit";
#endif
#endif
  const args_t args = {"--backend", "cpu", "--workload", "queue", "--threads", "4096", "--warmup", "0", "-q",
                       "--format", "json"};
  const outcome o = run(args, 120, std::uint64_t(1) << 30);
  EXPECT_FALSE(o.timed_out) << show(args);
  EXPECT_EQ(o.signal, 0) << show(args) << ": " << o.err;
  EXPECT_EQ(o.rc, 3) << show(args) << ": " << o.err;
  EXPECT_EQ(lines(o.err), 1u) << o.err;
  EXPECT_NE(o.err.find("could start only"), std::string::npos) << o.err;
  EXPECT_TRUE(o.out.empty()) << o.out;
}

// --check: the estimate of a valid run, on one line, no work.
TEST(bad_input_output, check_prints_the_estimate) {
  const outcome o = run({"--accounts", "4096", "--check"}, 60);
  EXPECT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(o.out.rfind("ok: bank", 0), 0u) << o.out;
  EXPECT_EQ(lines(o.out), 1u) << o.out;
}

// A run stays within the memory it announced (CPU backend: host + buffers),
// plus the program itself and its threads.
TEST(resource_estimate, runs_stay_within_their_estimate) {
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "a sanitizer's shadow memory is not part of the estimate";
#endif
#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
  GTEST_SKIP() << "a sanitizer's shadow memory is not part of the estimate";
#endif
#endif
  const std::vector<args_t> runs = {
      {"--workload", "list", "--impl", "bucketed", "--keys", "1000000", "--ops", "2000000", "--threads", "8"},
      {"--workload", "list", "--impl", "all", "--keys", "3000", "--ops", "30000", "--threads", "8"},  // every prefill
      {"--workload", "stack", "--impl", "sharded", "--ops", "4000000", "--threads", "8"},
      {"--workload", "queue", "--impl", "ticket", "--per-thread", "50000", "--threads", "16"},
      {"--workload", "bank", "--accounts", "4000000", "--threads", "64", "--tpt", "64"},
      {"--workload", "vacation", "--impl", "all", "--relations", "200000", "--threads", "64", "--tpt", "64"},
      {"--workload", "kmeans", "--impl", "all", "--points", "1000000", "--clusters", "16", "--iterations", "2",
       "--threads", "16"},
      {"--workload", "graph", "--impl", "all", "--vertices", "500000", "--edges", "2000000", "--threads", "16"},
      {"--workload", "skiplist", "--impl", "all", "--keys", "20000", "--ops", "200000", "--threads", "8"},
  };
  for (auto args : runs) {
    args.insert(args.begin(), {"--backend", "cpu", "--warmup", "0", "-q", "--format", "json"});
    auto check = args;
    check.push_back("--check");
    const outcome c = run(check, 60);
    ASSERT_EQ(c.rc, 0) << show(check) << ": " << c.err;
    // "ok: <workload> on cpu: about X of host memory, Y in buffers"
    auto amount = [](const std::string& s, const std::string& before) {
      const auto at = s.rfind(" ", s.find(before) - 1);
      const auto num_at = s.rfind(" ", at - 1) + 1;
      double v = std::atof(s.substr(num_at, at - num_at).c_str());
      const std::string unit = s.substr(at + 1, 2);
      return unit == "GB" ? v * 1e9 : unit == "MB" ? v * 1e6 : v;
    };
    const double announced = amount(c.out, " of host memory") + amount(c.out, " in buffers");
    const outcome r = run(args, 300);
    ASSERT_EQ(r.rc, 0) << show(args) << ": " << r.err;
    const double used = double(r.max_rss_kb) * 1024.0;
    const double program = 48e6;  // the binary, its libraries and thread stacks touched
    EXPECT_LE(used, announced + program) << show(args) << ": peak RSS " << used << " bytes, announced " << announced
                                         << " (" << c.out << ")";
  }
}

// Time-boxed fuzzer: option strings built from the option names of --help
// and hostile values. With --check nothing runs; stm_bench must answer in
// time, never crash, and either accept (stdout: "ok: ..." lines) or refuse
// by the contract. STM_BENCH_FUZZ_SECONDS sets the box, STM_BENCH_FUZZ_SEED
// the sequence (a failure prints the case, which replays it).
TEST(bad_input_fuzz, option_strings) {
  const outcome help = run({"--help"}, 60);
  ASSERT_EQ(help.rc, 0);
  std::vector<std::string> names;
  for (const auto& name : option_names(help.out))
    if (name != "--list" && name != "--check") names.push_back(name);
  ASSERT_GT(names.size(), 20u);
  static const char* const values[] = {
      "", "0", "1", "-1", "2", "3", "7", "64", "100", "101", "1000", "4096", "65536", "1e3", "1e30", "-0", "0.5", "nan",
      "NaN", "inf", "-inf", "0x10", "010", "+5", " 5", "5 ", "4294967295", "4294967296", "18446744073709551615",
      "18446744073709551616", "99999999999999999999999", "full", "auto", "all", "tx", "harris", "ms", "ticket", "scan",
      "sharded", "treiber", "prstm", "gpustm", "backoff", "matched", "prodcons", "true", "false", "json", "csv", "table",
      "cpu", "gpu", "bank", "stack", "queue", "list", "20/20/60", "-10/10/100", "100/0/0", "/dev/zero", "/dev/null", "/",
      "/nonexistent", "=", ",", "--", "--quiet", "\x01", "\xff\xfe", "a=b", "threads=1,0", "semantic=0,100",
      "ops=1,2", "keys=1,2"};
  const char* fs = std::getenv("STM_BENCH_FUZZ_SECONDS");
  const double box = fs && *fs ? std::atof(fs) : 20.0;
  const char* ss = std::getenv("STM_BENCH_FUZZ_SEED");
  std::mt19937_64 rng(ss && *ss ? std::strtoull(ss, nullptr, 10) : 34);
  const auto t0 = std::chrono::steady_clock::now();
  std::size_t cases = 0, accepted = 0;
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < box) {
    args_t args{"--check"};  // first: never the value of an option before it
    const int n = 1 + int(rng() % 4);
    for (int i = 0; i < n; ++i) {
      const std::string name = names[rng() % names.size()];
      const std::string value = values[rng() % (sizeof values / sizeof *values)];
      switch (rng() % 4) {
        case 0: args.push_back(name + "=" + value); break;
        case 1: args.push_back(name); break;
        default: args.push_back(name), args.push_back(value); break;
      }
    }
    const outcome o = run(args, case_bound() * 3);
    ++cases;
    ASSERT_FALSE(o.timed_out) << show(args);
    ASSERT_EQ(o.signal, 0) << show(args) << ": " << o.err;
    if (o.rc == 0) {
      ++accepted;
      ASSERT_GE(lines(o.out), 1u) << show(args);
      std::istringstream out(o.out);
      for (std::string line; std::getline(out, line);) ASSERT_EQ(line.rfind("ok: ", 0), 0u) << show(args) << ": " << o.out;
    } else {
      expect_refused(args, o);
      if (::testing::Test::HasFailure()) return;
    }
  }
  std::printf("fuzzer: %zu option strings in %.0f s, %zu accepted by --check\n", cases, box, accepted);
  EXPECT_GT(cases, 10u);
}

}  // namespace
