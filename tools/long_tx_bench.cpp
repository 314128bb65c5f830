// SPDX-License-Identifier: Apache-2.0
// long_tx_bench - long read-only transactions on the CPU backend, as a user
// writes them: an audit reads R accounts with TX_BEGIN/TX_READ/TX_END and
// checks their total, alone and beside writer threads doing 2-account
// transfers among the audited accounts. Every committed audit (and, opaque,
// every attempt's body) must see the right total: exit 1 otherwise.
//
//   long_tx_bench [--out FILE.jsonl] [--seconds S] [--writers N] [--auditors A] [--label L]
//
// For R in {64, 256, 1024, 4096}, opaque and non-opaque descriptors
// (tx_config<4096, 2, Opaque>), over a lock table with the commit clock and
// without it (without: incremental validation, O(R^2) checks per opaque
// attempt), one JSON line per configuration: microseconds per audit alone;
// beside the writers (A auditor threads, default 1: with more, escalated
// audits meet each other), committed audits, attempts per committed audit,
// the most attempts one audit took, escalations, and audits and transfers per
// second. --label L adds "label": L to every line (which build ran).
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cmp/prstm.hpp"
#include "stm/stm.hpp"

namespace {

constexpr std::uint32_t capacity = 4096;
constexpr int initial = 1000;

struct figures {
  double us_alone = 0;
  std::uint64_t audits = 0, attempts = 0, max_attempts = 0, escalations = 0, transfers = 0, wrong = 0;
  double seconds = 0;
};

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

template <bool Opaque>
figures measure(std::uint32_t R, bool clock, std::uint32_t writers, std::uint32_t auditors, double seconds) {
  using cfg = stm::tx_config<capacity, 2, Opaque>;
  std::vector<int> acct(R, initial);
  stm::lock_table locks(stm::backend::cpu, R, acct.data(), sizeof(int), 1, clock);
  const auto lref = locks.ref();
  const long long expected = static_cast<long long>(initial) * R;
  figures f;
  std::atomic<std::uint64_t> wrong{0};
  auto audit = [&](stm::transaction<stm::cm::prstm, cfg>& tx) {
    long long sum = 0;
    TX_BEGIN(tx) {
      sum = 0;
      for (std::uint32_t i = 0; i < R; ++i) sum += TX_READ(tx, &acct[i]);
      if (Opaque && sum != expected) wrong.fetch_add(1, std::memory_order_relaxed);
    }
    TX_END(tx);
    if (!tx.committed() || sum != expected) wrong.fetch_add(1, std::memory_order_relaxed);
  };
  {  // alone
    stm::transaction<stm::cm::prstm, cfg> tx(lref, 0);
    std::uint64_t n = 0;
    const double t0 = now_s();
    double t = t0;
    while (t - t0 < seconds / 4 || n < 3) {
      audit(tx);
      ++n;
      t = now_s();
    }
    f.us_alone = (t - t0) / double(n) * 1e6;
  }
  {  // beside writers
    std::atomic<bool> stop{false};
    std::atomic<std::uint64_t> transfers{0};
    std::vector<std::thread> ws;
    for (std::uint32_t w = 0; w < writers; ++w)
      ws.emplace_back([&, w] {
        stm::transaction<stm::cm::prstm, stm::tx_config<4, 4>> tx(lref, 1 + w);
        std::uint64_t x = 0x9E3779B97F4A7C15ull * (w + 1), n = 0;
        while (!stop.load(std::memory_order_relaxed)) {
          x ^= x << 13;
          x ^= x >> 7;
          x ^= x << 17;
          const std::uint32_t a = static_cast<std::uint32_t>(x % R);
          const std::uint32_t b = (a + 1 + static_cast<std::uint32_t>((x >> 32) % (R - 1))) % R;
          TX_BEGIN(tx) {
            const int va = TX_READ(tx, &acct[a]);
            const int vb = TX_READ(tx, &acct[b]);
            TX_WRITE(tx, &acct[a], va - 1);
            TX_WRITE(tx, &acct[b], vb + 1);
          }
          TX_END(tx);
          ++n;
        }
        transfers.fetch_add(n);
      });
    // The auditors have the lowest priorities (highest ids): writers win every
    // conflict they take part in, as in a user program with many writers.
    std::mutex m;
    std::vector<std::thread> as;
    const double t0 = now_s();
    double t_end = t0;
    for (std::uint32_t a = 0; a < auditors; ++a)
      as.emplace_back([&, a] {
        stm::transaction<stm::cm::prstm, cfg> tx(lref, writers + 1 + a);
        std::uint64_t audits = 0, attempts = 0, max_attempts = 0;
        double t = now_s();
        while (t - t0 < seconds || audits < 1) {
          audit(tx);
          ++audits;
          attempts += tx.attempts() + 1;
          if (tx.attempts() + 1 > max_attempts) max_attempts = tx.attempts() + 1;
          t = now_s();
        }
        std::lock_guard<std::mutex> g(m);
        f.audits += audits;
        f.attempts += attempts;
        if (max_attempts > f.max_attempts) f.max_attempts = max_attempts;
        f.escalations += tx.counters().escalations;
        if (t > t_end) t_end = t;
      });
    for (auto& th : as) th.join();
    const double t = t_end;
    f.seconds = t - t0;
    stop.store(true);
    for (auto& th : ws) th.join();
    f.transfers = transfers.load();
  }
  long long total = 0;
  for (int v : acct) total += v;
  f.wrong = wrong.load() + (total != expected ? 1 : 0);
  for (std::uint32_t w : locks.snapshot()) f.wrong += stm::lock_word::is_free(w) ? 0 : 1;
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out;
  double seconds = 1.0;
  std::uint32_t writers = 3, auditors = 1;
  std::string label;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--out" && i + 1 < argc) out = argv[++i];
    else if (a == "--seconds" && i + 1 < argc) seconds = std::atof(argv[++i]);
    else if (a == "--writers" && i + 1 < argc) writers = static_cast<std::uint32_t>(std::atoi(argv[++i]));
    else if (a == "--auditors" && i + 1 < argc) auditors = static_cast<std::uint32_t>(std::atoi(argv[++i]));
    else if (a == "--label" && i + 1 < argc) label = argv[++i];
    else {
      std::fprintf(stderr, "long_tx_bench: unknown or incomplete option '%s'\n", a.c_str());
      return 2;
    }
  }
  bool label_ok = true;
  for (char ch : label) label_ok &= ch != '"' && ch != '\\' && ch >= ' ';
  if (!(seconds > 0) || writers == 0 || writers > 64 || auditors == 0 || auditors > 64 || !label_ok) {
    std::fprintf(stderr,
                 "long_tx_bench: --seconds must be > 0, --writers and --auditors in [1, 64], --label plain text\n");
    return 2;
  }
  FILE* f = out.empty() ? nullptr : std::fopen(out.c_str(), "a");
  if (!out.empty() && f == nullptr) {
    std::fprintf(stderr, "long_tx_bench: cannot open %s\n", out.c_str());
    return 2;
  }
  bool ok = true;
  for (bool clock : {true, false})
    for (std::uint32_t R : {64u, 256u, 1024u, 4096u})
      for (bool opaque : {true, false}) {
        const figures x = opaque ? measure<true>(R, clock, writers, auditors, seconds)
                                 : measure<false>(R, clock, writers, auditors, seconds);
        ok &= x.wrong == 0;
        char line[768];
        std::snprintf(line, sizeof line,
                      "{\"bench\": \"long_tx\", \"backend\": \"cpu\", \"hardware_threads\": %u, \"reads\": %u, "
                      "\"opaque\": %s, \"clock\": %s, \"writers\": %u, \"auditors\": %u, \"us_per_audit_alone\": %.3f, "
                      "\"audits_beside_writers\": %llu, \"attempts_per_audit\": %.3f, \"max_attempts\": %llu, "
                      "\"escalations\": %llu, \"audits_per_s\": %.1f, \"transfers_per_s\": %.1f, \"verified\": %s%s%s%s}",
                      std::thread::hardware_concurrency(), R, opaque ? "true" : "false", clock ? "true" : "false",
                      writers, auditors, x.us_alone, static_cast<unsigned long long>(x.audits),
                      double(x.attempts) / double(x.audits), static_cast<unsigned long long>(x.max_attempts),
                      static_cast<unsigned long long>(x.escalations), double(x.audits) / x.seconds,
                      double(x.transfers) / x.seconds, x.wrong == 0 ? "true" : "false",
                      label.empty() ? "" : ", \"label\": \"", label.c_str(), label.empty() ? "" : "\"");
        std::printf("%s\n", line);
        std::fflush(stdout);
        if (f) std::fprintf(f, "%s\n", line);
      }
  if (f) std::fclose(f);
  return ok ? 0 : 1;
}
