#pragma once
// Test helper: whether an estimate carries a diagnostic code.
#include <algorithm>
#include <string>

#include "pplan/model/estimate.h"

namespace pplan::testing {

inline bool has_code(const Estimate& e, const std::string& code) {
  return std::any_of(e.diagnostics.begin(), e.diagnostics.end(),
                     [&](const Diagnostic& d) { return d.code == code; });
}

}  // namespace pplan::testing
