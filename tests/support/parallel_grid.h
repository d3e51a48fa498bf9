#pragma once
// Test helper: a parallel grid by its sizes, in Megatron's order (tp, cp, ep, dp, pp).
#include "pplan/specs.h"

namespace pplan::testing {

inline ParallelConfig grid(int tp, int cp, int ep, int dp, int pp) {
  ParallelConfig p;
  p.tp = tp;
  p.cp = cp;
  p.ep = ep;
  p.dp = dp;
  p.pp = pp;
  return p;
}

}  // namespace pplan::testing
