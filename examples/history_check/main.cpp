// SPDX-License-Identifier: Apache-2.0
// Checking a kernel's history: the transfers of the first kernel run with a
// recording descriptor (tx_config<..., Record=true>), which logs every
// committed transaction and every aborted attempt into a stm::history; then
// stm::check_history checks on the host that the commits are serializable,
// that memory ends with each location's last write, and (opaque descriptor)
// that every attempt, aborted ones too, saw one consistent snapshot. Runs on
// the CPU, and on the GPU as well when compiled as CUDA and a GPU is present.
// Exit status: 0 when every check passes, 1 when one fails (with the reason).
#include <cstdio>
#include <vector>

#include <stm/history.hpp>
#include <stm/history_check.hpp>
#include <stm/launch.hpp>
#include <stm/stm.hpp>
#if STM_WITH_CUDA
#include <stm/launch.cuh>
#endif

template <class Exec>
bool check_transfers(unsigned threads) {
  constexpr int accounts = 64, initial = 100;
  stm::buffer<int> balance(Exec::where, accounts);
  balance.fill(initial);
  stm::lock_table locks(Exec::where, accounts, balance.data(), sizeof(int));
  // Room for every commit (16 per thread, at most 4 accesses each) and as many aborted attempts;
  // aborted attempts beyond that are counted, not checked.
  const std::uint64_t commits = 16ull * threads;
  stm::history hist(locks, commits, 4 * commits, commits, 4 * commits);
  const stm::lock_table_ref l = locks.ref();
  const stm::history_ref h = hist.ref();
  int* b = balance.data();
  Exec::run(threads, [=] STM_HD(std::uint32_t tid) {
    stm::transaction<stm::prstm, stm::tx_config<4, 4, /*Opaque=*/true, /*Record=*/true>> tx(l, tid);
    tx.record_into(h);  // before the first transaction
    TX_FOR(tx, r, 16) {
      const int from = (tid * 7 + r) % accounts, to = (from + 1 + (tid * 13 + r) % (accounts - 1)) % accounts;
      const int a = TX_READ(tx, &b[from]);
      if (a < 1) TX_SEMANTIC_ABORT(tx);
      TX_WRITE(tx, &b[from], a - 1);
      TX_WRITE(tx, &b[to], TX_READ(tx, &b[to]) + 1);
    } TX_FOR_END(tx);
  });
  stm::history_check_options opt;
  opt.initial = [](std::uint64_t) { return std::uint64_t(initial); };  // bits of every location before the run
  const std::vector<int> after = balance.to_vector();
  const auto base = reinterpret_cast<std::uint64_t>(b);
  opt.final_value = [&](std::uint64_t addr) { return std::uint64_t(std::uint32_t(after[(addr - base) / sizeof(int)])); };
  const stm::history_report report = stm::check_history(hist.read(), opt);
  std::printf("history_check (%s): %u threads: %s\n  %s\n", stm::to_string(Exec::where), threads,
              report.ok ? "serializable and opaque" : "FAILED", report.summary().c_str());
  if (!report.ok) std::printf("  %s\n", report.explanation.c_str());
  return report.ok;
}

int main() {
  bool ok = check_transfers<stm::cpu_exec>(64);
#if STM_WITH_CUDA
  if (stm::gpu_available())
    ok = check_transfers<stm::gpu_exec>(2048) && ok;
  else
    std::printf("no CUDA device: the GPU run is skipped\n");
#endif
  return ok ? 0 : 1;
}
