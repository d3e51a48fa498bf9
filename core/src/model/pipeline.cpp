#include "pplan/model/pipeline.h"

#include <algorithm>

namespace pplan {

double bubble_ratio(int pp, int vpp, double microbatches) {
  if (pp <= 1 || microbatches <= 0) return 0.0;
  return (pp - 1) / (double(vpp) * microbatches);
}

double bubble_fraction(int pp, int vpp, double microbatches) {
  if (pp <= 1 || microbatches <= 0) return 0.0;
  return (pp - 1.0) / (double(vpp) * microbatches + pp - 1.0);
}

double pipeline_bubble_s(ScheduleKind schedule, int pp, int vpp, const StagePasses& passes) {
  if (pp <= 1) return 0.0;
  const double f = passes.forward_s, b = passes.backward_s, w = passes.weight_grad_s;
  const double stages = pp - 1.0;
  double bubble = 0;
  switch (schedule) {
    case ScheduleKind::kOneFOneB:
    case ScheduleKind::kInterleaved: bubble = stages / vpp * (f + b); break;
    case ScheduleKind::kZbH1: bubble = stages / vpp * (f + b - 2.0 * w); break;
    case ScheduleKind::kZbV: bubble = stages * (f + b - 3.0 * w) / 2.0; break;
    case ScheduleKind::kDualPipe: bubble = (pp / 2.0 - 1.0) * ((f + b) + b - 3.0 * w); break;
    case ScheduleKind::kDualPipeV: bubble = stages * ((f + b) + b - 3.0 * w) / 2.0; break;
  }
  return std::max(0.0, bubble);
}

}  // namespace pplan
