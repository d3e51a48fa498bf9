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
    case Activation::kClampedSwiglu: return "clamped_swiglu";
  }
  return "gelu";
}

const char* precision_name(Precision precision) {
  switch (precision) {
    case Precision::kFp8: return "fp8";
    case Precision::kFp4: return "nvfp4";
    case Precision::kBf16: break;
  }
  return "bf16";
}

const char* fp8_recipe_name(Fp8Recipe recipe) {
  switch (recipe) {
    case Fp8Recipe::kCurrent: return "current";
    case Fp8Recipe::kBlockwise: return "blockwise";
    case Fp8Recipe::kMxfp8: return "mxfp8";
    case Fp8Recipe::kNvfp4: return "nvfp4";
    case Fp8Recipe::kDelayed: break;
  }
  return "delayed";
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
