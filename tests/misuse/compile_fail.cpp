// SPDX-License-Identifier: Apache-2.0
// Misuses the compiler refuses (tests/misuse/CMakeLists.txt compiles this
// file once per case, -DMISUSE_<CASE>, and expects the error text of the rule;
// MISUSE_NONE is the control: the same file compiles).
#include <stm/stm.hpp>

int data[4];

template <class Tx>
int helper_reading_with_tx_read(Tx& tx) {
#if defined(MISUSE_READ_IN_HELPER)
  return TX_READ(tx, &data[0]);  // a helper must use TX_READ_IN
#else
  return TX_READ_IN(tx, &data[0], 0);
#endif
}

#if defined(MISUSE_LARGE_READ_SET) && defined(__CUDACC__)
// A descriptor of more than 1024 reads compiled for the GPU: a warning.
__global__ void large_read_set(stm::lock_table_ref l, const int* p, long* out) {
  stm::transaction<stm::prstm, stm::tx_config<2048, 4>> tx(l, threadIdx.x);
  long s = 0;
  TX_BEGIN(tx) { s = TX_READ(tx, &p[threadIdx.x]); } TX_END(tx);
  out[threadIdx.x] = s;
}
#endif

int misuse(stm::lock_table_ref l) {
  stm::transaction<> tx(l, 0);
  stm::transaction<> other(l, 1);
  int seen = 0;
#if defined(MISUSE_RETURN_VALUE)
  TX_BEGIN(tx) { if (TX_READ(tx, &data[0]) > 0) return 1; } TX_END(tx);
#elif defined(MISUSE_RETURN_VOID)
  TX_BEGIN(tx) { if (TX_READ(tx, &data[0]) > 0) return; } TX_END(tx);
#elif defined(MISUSE_BREAK)
  TX_FOR(tx, i, 4) { if (TX_READ(tx, &data[i]) > 0) break; } TX_FOR_END(tx);
#elif defined(MISUSE_CONTINUE)
  TX_FOR(tx, i, 4) { if (TX_READ(tx, &data[i]) > 0) continue; TX_WRITE(tx, &data[i], 1); } TX_FOR_END(tx);
#elif defined(MISUSE_GOTO)
  TX_BEGIN(tx) { if (TX_READ(tx, &data[0]) > 0) goto out; } TX_END(tx);
out:
#elif defined(MISUSE_NESTED)
  TX_BEGIN(tx) { TX_BEGIN(other) { TX_WRITE(other, &data[0], 1); } TX_END(other); } TX_END(tx);
#elif defined(MISUSE_NESTED_SAME)
  TX_FOR(tx, i, 2) { TX_ATTEMPT(tx) { TX_WRITE(tx, &data[i], 1); } TX_ATTEMPT_END(tx); } TX_FOR_END(tx);
#elif defined(MISUSE_FORM_IN_THEN)
  TX_FOR(tx, i, 2) { TX_WRITE(tx, &data[i], 1); } TX_FOR_THEN(tx) {
    TX_BEGIN(other) { TX_WRITE(other, &data[3], 1); } TX_END(other);
  }
#elif defined(MISUSE_READ_OUTSIDE)
  seen = TX_READ(tx, &data[0]);
#elif defined(MISUSE_THEN_THEN_END)
  TX_FOR(tx, i, 4) { TX_WRITE(tx, &data[i], 1); } TX_FOR_THEN(tx) { seen += tx.committed(); } TX_FOR_END(tx);
#elif defined(MISUSE_END_MISMATCH)
  TX_FOR(tx, i, 4) { TX_WRITE(tx, &data[i], 1); } TX_END(tx);
#elif defined(MISUSE_SNAPSHOT_WRITE)
  stm::snapshot_transaction s(l, 2);
  TX_BEGIN(s) { TX_WRITE(s, &data[0], TX_READ(s, &data[1])); } TX_END(s);
#else
  // The control: each form, correctly, with a helper.
  TX_FOR(tx, i, 4) {
    for (int k = 0; k < 4; ++k) {
      if (k == 1) continue;  // the body's own loops keep break and continue
      if (k == 3) break;
    }
    TX_WRITE(tx, &data[i], TX_READ(tx, &data[i]) + 1);
  } TX_FOR_THEN(tx) { seen += tx.committed(); }
  TX_BEGIN(tx) { seen += TX_CALL(tx, helper_reading_with_tx_read(tx)); } TX_END(tx);
  TX_ATTEMPT(other) { TX_WRITE(other, &data[3], 2); } TX_ATTEMPT_END(other);
  stm::snapshot_transaction s(l, 2);
  TX_BEGIN(s) { seen += TX_READ(s, &data[1]); } TX_END(s);
#endif
#if defined(MISUSE_READ_IN_HELPER)
  TX_BEGIN(tx) { seen += TX_CALL(tx, helper_reading_with_tx_read(tx)); } TX_END(tx);
#endif
  return seen;
}
