// SPDX-License-Identifier: Apache-2.0
// tests/support/scoped_env.hpp - an environment variable set (or unset) for a
// scope and restored at its end, also when an assertion leaves the scope
// early: tests of settings read from the environment must not leak them into
// the tests that run after them in the same binary.
#pragma once

#include <cstdlib>
#include <string>

namespace stm_test {

class scoped_env {
 public:
  /// value nullptr: unset for the scope.
  scoped_env(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    if (value) setenv(name, value, 1);
    else unsetenv(name);
  }
  ~scoped_env() {
    if (had_) setenv(name_.c_str(), old_.c_str(), 1);
    else unsetenv(name_.c_str());
  }
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;

 private:
  std::string name_, old_;
  bool had_ = false;
};

}  // namespace stm_test
