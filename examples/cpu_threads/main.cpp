// SPDX-License-Identifier: Apache-2.0
// The same code on CPU threads: the transfers of the first kernel written once,
// as an STM_HD lambda, for a backend that is a type (stm::cpu_exec runs n
// logical threads on a pool of OS threads, stm::gpu_exec launches a kernel).
// This program runs them on the CPU, and on the GPU as well when it was
// compiled as CUDA and a GPU is present, and checks the total after each run.
// Exit status: 0 when every total is right, 1 when one is not.
#include <cstdio>

#include <stm/launch.hpp>
#include <stm/stm.hpp>
#if STM_WITH_CUDA
#include <stm/launch.cuh>
#endif

constexpr int accounts = 1024, initial = 100;

// The transfers on either backend: Exec is stm::cpu_exec or stm::gpu_exec.
template <class Exec>
void transfers_on(int* balance, unsigned threads) {
  stm::lock_table locks(Exec::where, accounts, balance, sizeof(int));
  const stm::lock_table_ref l = locks.ref();
  Exec::run(threads, [=] STM_HD(std::uint32_t tid) {  // tid = 0 .. threads - 1, also the priority
    stm::transaction<> tx(l, tid);
    TX_FOR(tx, r, 16) {
      const int from = (tid * 7 + r) % accounts, to = (from + 1 + (tid * 13 + r) % (accounts - 1)) % accounts;
      const int a = TX_READ(tx, &balance[from]);
      if (a < 10) TX_SEMANTIC_ABORT(tx);
      TX_WRITE(tx, &balance[from], a - 10);
      TX_WRITE(tx, &balance[to], TX_READ(tx, &balance[to]) + 10);
    } TX_FOR_END(tx);
  });
}

// Run on one backend and check the total; true when it is right.
template <class Exec>
bool run_and_check(unsigned threads) {
  stm::buffer<int> balance(Exec::where, accounts);  // zero-filled memory of one backend
  balance.fill(initial);
  transfers_on<Exec>(balance.data(), threads);
  long total = 0;
  for (int v : balance.to_vector()) total += v;
  const long expected = long(accounts) * initial;
  std::printf("cpu_threads (%s): %u logical threads, total %ld (expected %ld): %s\n", stm::to_string(Exec::where),
              threads, total, expected, total == expected ? "ok" : "WRONG");
  return total == expected;
}

int main() {
  bool ok = run_and_check<stm::cpu_exec>(256);
#if STM_WITH_CUDA
  if (stm::gpu_available())
    ok = run_and_check<stm::gpu_exec>(8192) && ok;
  else
    std::printf("no CUDA device: the GPU run is skipped\n");
#endif
  return ok ? 0 : 1;
}
