// SPDX-License-Identifier: Apache-2.0
// containers/list/seed_format.hpp - the data files of Liu, Pak and Guerrero's
// GPU linked-list library (harris_seq.hpp) and their sequential meaning
// (host only).
//
//   listnodes.txt    first line: the number of values N; then N values, one
//                    per line: the initial sequence, head first.
//   operations.txt   first line: the number of operations M; then M lines,
//                    "1 <target> <new>" (insert <new> right after <target>) or
//                    "0 <target>" (remove <target>).
// Values are integers in [0, 2^32 - 1]; text after "//" on a line is a
// comment; blank lines are skipped. Initial values are distinct, and every
// inserted value is new (absent from the initial list and from every other
// insert), as their generator guarantees. Anything else is a
// usage_error naming the file and the line.
#pragma once

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <istream>
#include <list>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "stm/error.hpp"

namespace stm::list::seed {

struct operation {
  std::uint32_t kind;    // 1 insert-after, 0 remove
  std::uint32_t target;
  std::uint32_t value;   // insert only
};

namespace detail {
struct line_reader {
  std::istream& in;
  std::string file;
  std::uint64_t line = 0;
  // Next non-blank line's tokens (comments removed); false at the end. A
  // line is at most max_line characters: reading stays bounded whatever the
  // input (a file without newlines is refused at once).
  static constexpr std::size_t max_line = 4096;
  bool read_line(std::string& s) {
    s.clear();
    for (int ch; (ch = in.get()) != std::char_traits<char>::eof();) {
      if (ch == '\n') return true;
      if (s.size() == max_line) {
        ++line;
        fail("line longer than " + std::to_string(max_line) + " characters");
      }
      s += static_cast<char>(ch);
    }
    return !s.empty();
  }
  bool next(std::vector<std::string>& tokens) {
    std::string s;
    while (read_line(s)) {
      ++line;
      const auto c = s.find("//");
      if (c != std::string::npos) s.resize(c);
      std::istringstream is(s);
      tokens.clear();
      for (std::string t; is >> t;) tokens.push_back(t);
      if (!tokens.empty()) return true;
    }
    return false;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw usage_error(file + ":" + std::to_string(line) + ": " + what);
  }
  std::uint64_t number(const std::string& t, std::uint64_t max, const char* what) const {
    std::uint64_t v = 0;
    if (t.empty() || t.size() > 20) fail(std::string(what) + " '" + t + "' is not a number");
    for (char ch : t) {
      if (ch < '0' || ch > '9') fail(std::string(what) + " '" + t + "' is not a non-negative integer");
      v = v * 10 + std::uint64_t(ch - '0');
      if (v > max) fail(std::string(what) + " " + t + " is above " + std::to_string(max));
    }
    return v;
  }
  std::uint64_t count(std::uint64_t max) {
    std::vector<std::string> tok;
    if (!next(tok)) fail("empty file: the first line must hold the count");
    if (tok.size() != 1) fail("the first line must hold only the count");
    return number(tok[0], max, "count");
  }
};
inline std::ifstream open(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw usage_error("cannot open '" + path + "'");
  return f;
}
}  // namespace detail

/// Parse listnodes.txt from a stream (name is used in messages).
inline std::vector<std::uint32_t> parse_nodes(std::istream& in, const std::string& name,
                                              std::uint64_t max_count = (1u << 30) - 3) {
  detail::line_reader r{in, name};
  const std::uint64_t n = r.count(max_count);
  std::vector<std::uint32_t> values;
  values.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(n, 1u << 20)));  // grows with the file, not the claim
  std::unordered_set<std::uint32_t> seen;
  std::vector<std::string> tok;
  while (r.next(tok)) {
    if (values.size() == n) r.fail("more values than the count " + std::to_string(n));
    if (tok.size() != 1) r.fail("expected one value per line, found " + std::to_string(tok.size()) + " fields");
    const auto v = static_cast<std::uint32_t>(r.number(tok[0], 0xFFFFFFFFu, "value"));
    if (!seen.insert(v).second) r.fail("value " + tok[0] + " appears twice");
    values.push_back(v);
  }
  if (values.size() != n)
    throw usage_error(name + ":" + std::to_string(r.line) + ": the count says " + std::to_string(n) + " values, the file has " +
                      std::to_string(values.size()));
  return values;
}

/// Parse operations.txt; `initial` is the parsed listnodes (inserted values
/// must be new).
inline std::vector<operation> parse_ops(std::istream& in, const std::string& name, const std::vector<std::uint32_t>& initial,
                                        std::uint64_t max_count = 0xFFFFFFFFu) {
  detail::line_reader r{in, name};
  const std::uint64_t n = r.count(max_count);
  std::unordered_set<std::uint32_t> used(initial.begin(), initial.end());
  std::vector<operation> ops;
  ops.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(n, 1u << 20)));
  std::vector<std::string> tok;
  while (r.next(tok)) {
    if (ops.size() == n) r.fail("more operations than the count " + std::to_string(n));
    const auto kind = r.number(tok[0], 1, "operation kind (0 remove, 1 insert)");
    if (kind == 1 && tok.size() != 3) r.fail("an insert is '1 <target> <new>': expected 3 fields, found " + std::to_string(tok.size()));
    if (kind == 0 && tok.size() != 2) r.fail("a remove is '0 <target>': expected 2 fields, found " + std::to_string(tok.size()));
    operation op{static_cast<std::uint32_t>(kind), static_cast<std::uint32_t>(r.number(tok[1], 0xFFFFFFFFu, "target")), 0};
    if (kind == 1) {
      op.value = static_cast<std::uint32_t>(r.number(tok[2], 0xFFFFFFFFu, "new value"));
      if (!used.insert(op.value).second) r.fail("inserted value " + tok[2] + " is not new (already in the list or inserted before)");
    }
    ops.push_back(op);
  }
  if (ops.size() != n)
    throw usage_error(name + ":" + std::to_string(r.line) + ": the count says " + std::to_string(n) + " operations, the file has " +
                      std::to_string(ops.size()));
  return ops;
}

inline std::vector<std::uint32_t> read_nodes(const std::string& path) {
  auto f = detail::open(path);
  return parse_nodes(f, path);
}
inline std::vector<operation> read_ops(const std::string& path, const std::vector<std::uint32_t>& initial) {
  auto f = detail::open(path);
  return parse_ops(f, path, initial);
}

/// Sequential meaning: apply ops in order. ok[i] = whether op i succeeded.
inline std::vector<std::uint32_t> replay(const std::vector<std::uint32_t>& initial, const std::vector<operation>& ops,
                                         std::vector<char>* ok = nullptr) {
  std::list<std::uint32_t> seq(initial.begin(), initial.end());
  std::unordered_map<std::uint32_t, std::list<std::uint32_t>::iterator> where;
  for (auto it = seq.begin(); it != seq.end(); ++it) where[*it] = it;
  if (ok) ok->assign(ops.size(), 0);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    auto t = where.find(ops[i].target);
    if (t == where.end()) continue;
    if (ops[i].kind == 1) {
      where[ops[i].value] = seq.insert(std::next(t->second), ops[i].value);
    } else {
      seq.erase(t->second);
      where.erase(t);
    }
    if (ok) (*ok)[i] = 1;
  }
  return {seq.begin(), seq.end()};
}

/// Is `final_seq` a possible outcome of running `ops` concurrently from
/// `initial`, given which ops reported success? Checks: the values are
/// initial + successful inserts - successful removes; a value is removed at
/// most once; a failed operation's target was removed by a successful remove
/// (or, for an insert, was itself a value inserted by an op); initial values
/// keep their relative order; a surviving insert sits after its surviving
/// target with only inserted values between them. Empty string when all hold.
inline std::string verify(const std::vector<std::uint32_t>& initial, const std::vector<operation>& ops,
                          const std::vector<char>& ok, const std::vector<std::uint32_t>& final_seq) {
  std::unordered_map<std::uint32_t, std::size_t> pos;
  for (std::size_t i = 0; i < final_seq.size(); ++i)
    if (!pos.emplace(final_seq[i], i).second) return "value " + std::to_string(final_seq[i]) + " appears twice";
  std::unordered_set<std::uint32_t> expect(initial.begin(), initial.end()), removed, inserted, is_initial(initial.begin(), initial.end());
  for (std::size_t i = 0; i < ops.size(); ++i)
    if (ops[i].kind == 1) inserted.insert(ops[i].value);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (!ok[i]) continue;
    if (ops[i].kind == 1) expect.insert(ops[i].value);
    else if (!removed.insert(ops[i].target).second) return "value " + std::to_string(ops[i].target) + " removed twice";
  }
  for (auto v : removed) {
    if (!expect.count(v)) return "removed value " + std::to_string(v) + " was never present";
    expect.erase(v);
  }
  if (expect.size() != final_seq.size())
    return "length " + std::to_string(final_seq.size()) + ", expected " + std::to_string(expect.size()) +
           " (initial + successful inserts - successful removes)";
  for (auto v : final_seq)
    if (!expect.count(v)) return "value " + std::to_string(v) + " should not be in the list";
  for (std::size_t i = 0; i < ops.size(); ++i)
    if (!ok[i] && !removed.count(ops[i].target) && !inserted.count(ops[i].target))
      return "operation " + std::to_string(i) + " failed although its target " + std::to_string(ops[i].target) +
             " was never removed";
  std::size_t last = 0;
  bool any = false;
  for (auto v : initial) {
    auto p = pos.find(v);
    if (p == pos.end()) continue;
    if (any && p->second < last) return "initial values out of their order at " + std::to_string(v);
    any = true;
    last = p->second;
  }
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (!ok[i] || ops[i].kind != 1) continue;
    auto t = pos.find(ops[i].target), n = pos.find(ops[i].value);
    if (t == pos.end() || n == pos.end()) continue;
    if (n->second <= t->second) return "value " + std::to_string(ops[i].value) + " is not after its target";
    for (std::size_t k = t->second + 1; k < n->second; ++k)
      if (is_initial.count(final_seq[k])) return "initial value " + std::to_string(final_seq[k]) + " between " +
                                                 std::to_string(ops[i].target) + " and " + std::to_string(ops[i].value);
  }
  return "";
}

}  // namespace stm::list::seed
