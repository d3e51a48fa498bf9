#include "pplan/specs.h"

namespace pplan {

const char* recompute_name(Recompute recompute) {
  switch (recompute) {
    case Recompute::kNone: return "none";
    case Recompute::kSelective: return "selective";
    case Recompute::kFull: return "full";
  }
  return "none";
}

std::vector<const char*> recompute_module_names(unsigned modules) {
  std::vector<const char*> names;
  for (std::size_t bit = 0; bit < kRecomputeModuleCount; ++bit) {
    if (modules & (1u << bit)) names.push_back(kRecomputeModuleNames[bit]);
  }
  return names;
}

const char* activation_name(Activation activation) {
  switch (activation) {
    case Activation::kGelu: return "gelu";
    case Activation::kSwiglu: return "swiglu";
    case Activation::kGeglu: return "geglu";
    case Activation::kSquaredRelu: return "squared_relu";
  }
  return "gelu";
}

const char* precision_name(Precision precision) {
  return precision == Precision::kFp8 ? "fp8" : "bf16";
}

const char* schedule_name(ScheduleKind schedule) {
  switch (schedule) {
    case ScheduleKind::kOneFOneB: return "1f1b";
    case ScheduleKind::kInterleaved: return "interleaved";
    case ScheduleKind::kZbH1: return "zb-h1";
    case ScheduleKind::kZbV: return "zb-v";
    case ScheduleKind::kDualPipe: return "dualpipe";
    case ScheduleKind::kDualPipeV: return "dualpipev";
  }
  return "1f1b";
}

}  // namespace pplan
