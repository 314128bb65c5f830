// SPDX-License-Identifier: Apache-2.0
// A first kernel: every thread makes 16 transfers between bank accounts, each
// one a transaction (TX_FOR), then the host checks that no money was made or
// lost. Compiled as CUDA (WITH_CUDA=ON) the transfers run as a CUDA kernel on
// the GPU; compiled as C++ the same transaction runs on CPU threads.
// Exit status: 0 when the total is right, 1 when it is not.
#include <cstdio>
#include <vector>

#include <stm/launch.hpp>
#include <stm/stm.hpp>

constexpr int accounts = 1024, initial = 100, rounds = 16;
constexpr unsigned threads = 4096;

// One thread's transfers, each all or nothing. tid is also its priority.
STM_HD void transfers(stm::lock_table_ref locks, int* balance, unsigned tid) {
  stm::transaction<> tx(locks, tid);
  TX_FOR(tx, r, rounds) {  // this thread's transactions r = 0, 1, ..., each retried until it ends
    const int from = (tid * 7 + r) % accounts, to = (from + 1 + (tid * 13 + r) % (accounts - 1)) % accounts;
    const int a = TX_READ(tx, &balance[from]);  // leaves the body at the first conflict
    if (a < 10) TX_SEMANTIC_ABORT(tx);          // not enough money: give this one up, don't retry
    TX_WRITE(tx, &balance[from], a - 10);
    TX_WRITE(tx, &balance[to], TX_READ(tx, &balance[to]) + 10);
  } TX_FOR_END(tx);
}

#if STM_WITH_CUDA
__global__ void transfer_kernel(stm::lock_table_ref locks, int* balance) {
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < threads) transfers(locks, balance, tid);
}
#endif

int main() {
  const stm::backend where = stm::gpu_available() ? stm::backend::gpu : stm::backend::cpu;
  stm::buffer<int> balance(where, accounts);  // memory of that backend
  balance.fill(initial);
  stm::lock_table locks(where, accounts, balance.data(), sizeof(int));  // one lock per account
  int* b = balance.data();
  const stm::lock_table_ref l = locks.ref();
#if STM_WITH_CUDA
  if (where == stm::backend::gpu) {
    transfer_kernel<<<(threads + 255) / 256, 256>>>(l, b);
    STM_CUDA_CHECK_LAUNCH("transfer_kernel");
    STM_CUDA_CHECK(cudaDeviceSynchronize());
  } else {
    std::printf("no CUDA device: running on CPU threads\n");
    stm::launch_cpu(threads, [=](std::uint32_t tid) { transfers(l, b, tid); });
  }
#else
  stm::launch_cpu(threads, [=](std::uint32_t tid) { transfers(l, b, tid); });
#endif
  long total = 0;
  for (int v : balance.to_vector()) total += v;
  const long expected = long(accounts) * initial;
  std::printf("first_kernel (%s): %u threads x %d transfers, total %ld (expected %ld): %s\n",
              stm::to_string(where), threads, rounds, total, expected, total == expected ? "ok" : "WRONG");
  return total == expected ? 0 : 1;
}
