// SPDX-License-Identifier: Apache-2.0
// stm/dist/dist.hpp - transactions over the words of several PEs (GPUs, or
// simulated PEs in one process): stm::dist.
//
//   stm::dist::layout        the space's shape: PEs, words per PE, lock coverage
//                            (block placement: a word's lock lives on its PE)
//   stm::dist::gptr<T>       a word of the space: (pe, index)
//   stm::dist::transaction   PR-STM over a transport, priorities global
//   stm::dist::atomically    run a body until it commits
//   stm::dist::sim_space     N simulated PEs in one process (CPU or one GPU)
// and, in builds with PRSTM_WITH_NVSHMEM, nvshmem_space and nvshmem_transport
// (stm/dist/nvshmem.hpp): one process per GPU over NVSHMEM.
//
// A thread's priority is stm::dist::priority(pe, local_tid, npes): unique
// across PEs while local_tid < threads_per_pe_limit(npes). The design and its
// reasons: docs/multi-gpu.md. Nothing here changes the single-GPU core.
//
//   stm::dist::sim_space space(stm::backend::cpu, {2, 1024});   // 2 PEs x 1024 words
//   auto net = space.transport();
//   stm::dist::transaction<stm::dist::sim_transport> tx(net, space.shape(), stm::dist::priority(pe, tid, 2));
//   stm::dist::atomically(tx, [&](auto& t) {
//     const std::uint32_t a = TX_READ_IN(t, stm::dist::gptr<std::uint32_t>{1, 7});
//     TX_WRITE_IN(t, (stm::dist::gptr<std::uint32_t>{1, 7}), a + 1);
//   });
#pragma once

#include "stm/dist/detail/layout.hpp"
#include "stm/dist/detail/transport.hpp"
#include "stm/dist/detail/tx.hpp"
#include "stm/dist/sim.hpp"
#include "stm/tx_macros.hpp"
