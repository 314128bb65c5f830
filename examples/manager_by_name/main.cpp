// SPDX-License-Identifier: Apache-2.0
// A contention manager chosen by name at run time: stm::cm::dispatch turns the
// name into the manager's type once, on the host, and the kernel is compiled
// for each manager; device code only sees the type. The same bank transfers
// run under the chosen manager, and the total is checked.
//   ./manager_by_name [prstm|gpustm|backoff|delay]   (default prstm)
// Exit status: 0 when the total is right, 1 when it is not, 2 for an unknown name.
#include <cstdio>
#include <string>

#include <cmp/registry.hpp>
#include <stm/launch.hpp>
#include <stm/stm.hpp>
#if STM_WITH_CUDA
#include <stm/launch.cuh>
#endif

constexpr int accounts = 256, initial = 100;  // few accounts: transactions collide often

// Transfers under manager CM on backend Exec; the attempts that aborted are counted.
template <class Exec, class CM>
bool transfers(CM cm, unsigned threads) {
  stm::buffer<int> balance(Exec::where, accounts);
  balance.fill(initial);
  stm::buffer<unsigned long long> aborts(Exec::where, 1);
  stm::lock_table locks(Exec::where, accounts, balance.data(), sizeof(int));
  const stm::lock_table_ref l = locks.ref();
  int* b = balance.data();
  unsigned long long* ab = aborts.data();
  Exec::run(threads, [=] STM_HD(std::uint32_t tid) {
    stm::transaction<CM> tx(l, tid, cm);  // the manager is a type, and a value with its tuning
    unsigned long long attempts = 0;
    TX_FOR(tx, r, 16) {
      ++attempts;
      const int from = (tid * 7 + r) % accounts, to = (from + 1 + (tid * 13 + r) % (accounts - 1)) % accounts;
      const int a = TX_READ(tx, &b[from]);
      if (a < 10) TX_SEMANTIC_ABORT(tx);
      TX_WRITE(tx, &b[from], a - 10);
      TX_WRITE(tx, &b[to], TX_READ(tx, &b[to]) + 10);
    } TX_FOR_END(tx);
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(*ab).fetch_add(attempts - 16,
                                                                                  cuda::memory_order_relaxed);
  });
  long total = 0;
  for (int v : balance.to_vector()) total += v;
  const long expected = long(accounts) * initial;
  std::printf("manager_by_name (%s, %s): %u threads, %llu retried attempts, total %ld (expected %ld): %s\n",
              CM::name, stm::to_string(Exec::where), threads, aborts.to_vector()[0], total, expected,
              total == expected ? "ok" : "WRONG");
  return total == expected;
}

int main(int argc, char** argv) {
  if (argc > 2) {
    std::fprintf(stderr, "usage: %s [manager] (known: %s)\n", argv[0], stm::cm::known_names);
    return 2;
  }
  const std::string name = argc > 1 ? argv[1] : "prstm";
  try {
    return stm::cm::dispatch(name, [&](auto cm) {
      bool ok = transfers<stm::cpu_exec>(cm, 128);
#if STM_WITH_CUDA
      if (stm::gpu_available()) ok = transfers<stm::gpu_exec>(cm, 8192) && ok;
#endif
      return ok ? 0 : 1;
    });
  } catch (const stm::usage_error& e) {  // an unknown name: the message lists the known ones
    std::fprintf(stderr, "manager_by_name: %s\n", e.what());
    return 2;
  }
}
