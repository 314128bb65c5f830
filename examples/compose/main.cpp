// SPDX-License-Identifier: Apache-2.0
// Composing containers: move every item of a transactional stack to a
// transactional queue, counting the moves in a word of our own, each move (pop,
// enqueue, count) one transaction that commits whole or not at all. What the
// containers need for that: one lock table for everything composed, an opaque
// descriptor (the default stm::tx_config<>), and the caller's transaction
// passed to their operations. Runs on the CPU, and on the GPU as well when
// compiled as CUDA and a GPU is present.
// Exit status: 0 when every item moved exactly once, 1 otherwise.
#include <algorithm>
#include <cstdio>
#include <vector>

#include <containers/queue/tx.hpp>
#include <containers/stack/tx.hpp>
#include <stm/launch.hpp>
#include <stm/stm.hpp>
#if STM_WITH_CUDA
#include <stm/launch.cuh>
#endif

template <class Exec>
bool move_all(unsigned items, unsigned threads) {
  stm::lock_table locks(Exec::where, 4096, nullptr, 8);  // one table for everything composed
  stm::stack::tx_stack<int> stack(Exec::where, items, locks);
  stm::queue::tx_queue<int> queue(Exec::where, items, locks);
  stm::buffer<long> moved(Exec::where, 1);  // our own word, zero-filled
  const auto s = stack.ref();
  const auto q = queue.ref();
  long* m = moved.data();
  Exec::run(threads, [=] STM_HD(std::uint32_t tid) {
    for (unsigned i = tid; i < items; i += threads) s.push(tid, int(i));  // one transaction each
  });
  Exec::run(threads, [=] STM_HD(std::uint32_t tid) {
    stm::transaction<> tx(s.locks(), tid);
    for (bool more = true; more; more = tx.committed()) {  // until the stack is empty
      TX_BEGIN(tx) {
        int v = 0;
        if (s.pop(tx, v) != stm::op_status::ok || q.enqueue(tx, v) != stm::op_status::ok) TX_SEMANTIC_ABORT(tx);
        TX_WRITE(tx, m, TX_READ(tx, m) + 1);
      } TX_END(tx);
    }
  });
  // Every item is in the queue exactly once, none is left on the stack, and
  // the count of moves agrees: no move was half done.
  std::vector<int> in_queue = queue.contents();
  std::sort(in_queue.begin(), in_queue.end());
  bool ok = in_queue.size() == items && stack.contents().empty() && moved.to_vector()[0] == long(items);
  for (unsigned i = 0; ok && i < items; ++i) ok = in_queue[i] == int(i);
  std::printf("compose (%s): %u items moved by %u threads, %zu in the queue, %zu left on the stack, %ld moves "
              "counted: %s\n", stm::to_string(Exec::where), items, threads, in_queue.size(), stack.contents().size(),
              moved.to_vector()[0], ok ? "ok" : "WRONG");
  return ok;
}

int main() {
  bool ok = move_all<stm::cpu_exec>(2000, 64);
#if STM_WITH_CUDA
  if (stm::gpu_available())
    ok = move_all<stm::gpu_exec>(100000, 4096) && ok;
  else
    std::printf("no CUDA device: the GPU run is skipped\n");
#endif
  return ok ? 0 : 1;
}
