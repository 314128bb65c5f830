// SPDX-License-Identifier: Apache-2.0
// workloads/detail/spread.hpp - the spread of the threads' (or blocks') drain
// times that the table-driven workloads report: the median and the slowest.
#pragma once

#include <algorithm>
#include <iterator>

namespace stm::workloads::detail {

struct median_max {
  double p50 = 0, max = 0;  ///< seconds
};

/// The median and the largest of the nanosecond counts in [first, last), in
/// seconds (zeros when empty). Reorders the range.
template <class It>
median_max median_and_max_seconds(It first, It last) {
  median_max r;
  if (first == last) return r;
  const It mid = first + std::distance(first, last) / 2;
  std::nth_element(first, mid, last);
  r.p50 = double(*mid) * 1e-9;
  r.max = double(*std::max_element(first, last)) * 1e-9;
  return r;
}

}  // namespace stm::workloads::detail
