// SPDX-License-Identifier: Apache-2.0
// workloads/graph/detail/csr.hpp - the graph workload's host side: a directed
// graph in CSR form (generated from a seed or read from a file), its initial
// values, the sequential reference and the verifier.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "stm/error.hpp"
#include "workloads/detail/random.hpp"

namespace stm::workloads::graph {

/// Out-edges of vertex v: targets[offsets[v] .. offsets[v + 1]).
struct csr {
  std::uint32_t vertices = 0;
  std::vector<std::uint32_t> offsets{0};  // vertices + 1
  std::vector<std::uint32_t> targets;     // one per edge
  std::uint64_t edges() const { return targets.size(); }
};

enum class shape { uniform, rmat };

/// Most vertices and edges (32-bit CSR indices; values and flags are 4 bytes).
inline constexpr std::uint64_t max_vertices = 1ull << 31;
inline constexpr std::uint64_t max_edges = 0xFFFFFFFFull;

/// Refuses sizes the CSR cannot index (before anything is allocated).
inline void check_size(std::uint64_t vertices, std::uint64_t edges) {
  if (vertices < 1 || vertices > max_vertices)
    throw stm::usage_error("--vertices must be between 1 and 2^31, got " + std::to_string(vertices));
  if (edges > max_edges) throw stm::usage_error("--edges must be below 2^32, got " + std::to_string(edges));
}

/// CSR of the edge list (src[i], dst[i]) by a stable counting sort on the source.
inline csr build_csr(std::uint32_t vertices, const std::vector<std::uint32_t>& src, const std::vector<std::uint32_t>& dst) {
  check_size(vertices, src.size());
  csr g;
  g.vertices = vertices;
  g.offsets.assign(std::size_t(vertices) + 1, 0);
  for (std::uint32_t s : src) ++g.offsets[s + 1];
  std::partial_sum(g.offsets.begin(), g.offsets.end(), g.offsets.begin());
  std::vector<std::uint32_t> fill(g.offsets.begin(), g.offsets.end() - 1);
  g.targets.resize(src.size());
  for (std::size_t i = 0; i < src.size(); ++i) g.targets[fill[src[i]]++] = dst[i];
  return g;
}

/// A random directed graph; edge i is a pure function of (seed, i).
///   uniform  both ends uniform over the vertices (Erdos-Renyi G(n, m) with repeats);
///   rmat     R-MAT (Chakrabarti, Zhan and Faloutsos, SDM 2004) with the Graph500
///            parameters a = 0.57, b = c = 0.19: power-law degrees, hubs at low ids.
inline csr generate_csr(shape s, std::uint64_t vertices, std::uint64_t edges, std::uint64_t seed) {
  check_size(vertices, edges);
  const auto V = static_cast<std::uint32_t>(vertices);
  std::vector<std::uint32_t> src(edges), dst(edges);
  std::uint32_t scale = 0;
  while ((std::uint64_t(1) << scale) < vertices) ++scale;
  for (std::uint64_t i = 0; i < edges; ++i) {
    detail::counter_rng r(seed, 4, i);
    if (s == shape::uniform) {
      src[i] = r.below(V);
      dst[i] = r.below(V);
      continue;
    }
    std::uint64_t u = 0, v = 0;
    for (int attempt = 0;; ++attempt) {  // redraw an edge that falls outside [0, V)^2
      u = v = 0;
      for (std::uint32_t b = 0; b < scale; ++b) {
        const double p = r.unit();
        const std::uint64_t bit = std::uint64_t(1) << (scale - 1 - b);
        if (p >= 0.57 + 0.19 + 0.19) u |= bit, v |= bit;
        else if (p >= 0.57 + 0.19) u |= bit;
        else if (p >= 0.57) v |= bit;
      }
      if ((u < V && v < V) || attempt == 64) break;
    }
    src[i] = static_cast<std::uint32_t>(u % V);
    dst[i] = static_cast<std::uint32_t>(v % V);
  }
  return build_csr(V, src, dst);
}

/// Reads a graph: Matrix Market coordinate format (first line starting with
/// "%%MatrixMarket"; 1-based; a symmetric matrix gives both directions; values
/// ignored) or a plain edge list ("u v" per line, 0-based; lines starting with
/// '#' or '%' are comments). Throws stm::usage_error naming the line at fault.
inline csr load_csr(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw stm::usage_error("cannot open graph file '" + path + "'");
  std::vector<std::uint32_t> src, dst;
  std::string line;
  std::uint64_t lineno = 0, vertices = 0, declared_entries = 0;
  bool mm = false, symmetric = false, sized = false;
  auto bad = [&](const std::string& why) {
    return stm::usage_error(path + ":" + std::to_string(lineno) + ": " + why);
  };
  auto add = [&](std::uint64_t u, std::uint64_t v) {
    if (src.size() >= max_edges) throw bad("more than 2^32-1 edges");
    src.push_back(static_cast<std::uint32_t>(u));
    dst.push_back(static_cast<std::uint32_t>(v));
  };
  while (std::getline(in, line)) {
    ++lineno;
    if (lineno == 1 && line.rfind("%%MatrixMarket", 0) == 0) {
      mm = true;
      std::istringstream h(line);
      std::string banner, object, format, field, sym;
      h >> banner >> object >> format >> field >> sym;
      if (object != "matrix" || format != "coordinate")
        throw bad("only Matrix Market 'matrix coordinate' files hold a graph");
      symmetric = sym == "symmetric" || sym == "skew-symmetric" || sym == "hermitian";
      continue;
    }
    const std::size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#' || line[first] == '%') continue;
    std::istringstream l(line);
    long long a = -1, b = -1, n = -1;
    if (!(l >> a >> b)) throw bad("expected two vertex numbers");
    if (mm && !sized) {
      if (!(l >> n) || a < 1 || b < 1 || n < 0) throw bad("expected the size line 'rows columns entries'");
      vertices = std::uint64_t(std::max(a, b));
      check_size(vertices, 0);
      declared_entries = std::uint64_t(n);
      sized = true;
      continue;
    }
    const long long lo = mm ? 1 : 0, hi = mm ? static_cast<long long>(vertices) : static_cast<long long>(max_vertices) - 1;
    if (a < lo || b < lo || a > hi || b > hi)
      throw bad("vertex number out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    const std::uint64_t u = std::uint64_t(a - lo), v = std::uint64_t(b - lo);
    add(u, v);
    if (mm && symmetric && u != v) add(v, u);
    if (!mm) vertices = std::max(vertices, std::max(u, v) + 1);
  }
  if (mm && !sized) throw bad("no size line");
  if (mm && declared_entries != 0 && src.size() < declared_entries)
    throw bad("the file declares " + std::to_string(declared_entries) + " entries but holds fewer");
  if (vertices == 0) throw stm::usage_error("graph file '" + path + "' holds no vertex");
  return build_csr(static_cast<std::uint32_t>(vertices), src, dst);
}

/// Initial values, uniform in [1, max_value]; value v is a pure function of (seed, v).
inline std::vector<std::int32_t> initial_values(std::uint32_t vertices, std::uint64_t seed, std::int32_t max_value) {
  std::vector<std::int32_t> v(vertices);
  for (std::uint32_t i = 0; i < vertices; ++i)
    v[i] = 1 + static_cast<std::int32_t>(detail::counter_rng(seed, 3, i).below(static_cast<std::uint32_t>(max_value)));
  return v;
}

/// The least initial value over the vertices that reach each vertex: vertices
/// in increasing value order each flood (depth-first along out-edges) what they
/// reach and is not labelled yet. O(V log V + E).
inline std::vector<std::int32_t> reference_minima(const csr& g, const std::vector<std::int32_t>& initial) {
  std::vector<std::uint32_t> order(g.vertices);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return initial[a] < initial[b]; });
  std::vector<std::int32_t> label(g.vertices, 0);
  std::vector<bool> done(g.vertices, false);
  std::vector<std::uint32_t> stack;
  for (std::uint32_t s : order) {
    if (done[s]) continue;
    done[s] = true;
    label[s] = initial[s];
    stack.push_back(s);
    while (!stack.empty()) {
      const std::uint32_t u = stack.back();
      stack.pop_back();
      for (std::uint32_t e = g.offsets[u]; e < g.offsets[u + 1]; ++e) {
        const std::uint32_t v = g.targets[e];
        if (!done[v]) done[v] = true, label[v] = initial[s], stack.push_back(v);
      }
    }
  }
  return label;
}

/// Empty when `final_values` is the reference and no edge descends; else what is wrong first.
inline std::string verify(const csr& g, const std::vector<std::int32_t>& initial, const std::vector<std::int32_t>& reference,
                          const std::vector<std::int32_t>& final_values) {
  if (final_values.size() != g.vertices || reference.size() != g.vertices || initial.size() != g.vertices)
    return "the result has the wrong number of vertices";
  for (std::uint32_t u = 0; u < g.vertices; ++u)
    for (std::uint32_t e = g.offsets[u]; e < g.offsets[u + 1]; ++e)
      if (final_values[g.targets[e]] > final_values[u])
        return "edge (" + std::to_string(u) + ", " + std::to_string(g.targets[e]) + ") descends: " +
               std::to_string(final_values[u]) + " -> " + std::to_string(final_values[g.targets[e]]);
  for (std::uint32_t v = 0; v < g.vertices; ++v)
    if (final_values[v] != reference[v])
      return "vertex " + std::to_string(v) + " holds " + std::to_string(final_values[v]) +
             ", the least value reaching it is " + std::to_string(reference[v]) + " (initial " +
             std::to_string(initial[v]) + ")";
  return "";
}

}  // namespace stm::workloads::graph
