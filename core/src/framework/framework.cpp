#include "pplan/framework/framework.h"

namespace pplan {

namespace {
/// Megatron-Core and Megatron-LM: the same kernels wherever pplan prices them.
bool runs_megatron(Framework framework) {
  return framework == Framework::kMegatronCore || framework == Framework::kMegatronLm;
}
}  // namespace

const char* framework_name(Framework framework) {
  switch (framework) {
    case Framework::kMegatronCore: return "megatron-core";
    case Framework::kMegatronLm: return "megatron-lm";
    case Framework::kDeepSpeed: return "deepspeed";
    case Framework::kTorchtitan: return "torchtitan";
  }
  return "megatron-core";
}

Framework default_framework(const GpuSpec& gpu) {
  return gpu.architecture == "ampere" ? Framework::kMegatronLm : Framework::kMegatronCore;
}

TrainingSpec with_framework_defaults(TrainingSpec t, Framework framework, const GpuSpec& gpu) {
  t.framework = framework;
  const bool ampere = gpu.architecture == "ampere";
  switch (framework) {
    case Framework::kMegatronCore:
      t.flash_attention = true;
      t.tp_comm_overlap = true;  // applied only with sequence parallelism (compute.cpp)
      t.overlap_grad_reduce = true;
      t.overlap_param_gather = true;
      t.grad_reduce_in_fp32 = false;
      break;
    case Framework::kMegatronLm:
      t.flash_attention = !ampere;
      t.tp_comm_overlap = false;
      t.overlap_grad_reduce = false;
      t.overlap_param_gather = false;
      t.grad_reduce_in_fp32 = true;
      break;
    case Framework::kDeepSpeed:
      t.flash_attention = false;
      t.tp_comm_overlap = false;
      t.overlap_grad_reduce = false;  // DeepSpeed turns it on for ZeRO-3 (overlaps_grad_reduce)
      t.overlap_param_gather = false;
      t.grad_reduce_in_fp32 = false;
      break;
    case Framework::kTorchtitan:
      t.flash_attention = true;
      t.tp_comm_overlap = false;
      t.overlap_grad_reduce = true;
      t.overlap_param_gather = true;
      t.grad_reduce_in_fp32 = true;
      break;
  }
  t.cuda_graphs = false;
  t.fp8_recipe = Fp8Recipe::kDelayed;
  // Megatron-Core's own default dispatcher is allgather (d98e8a64 transformer_config.py:891);
  // its MoE recipes set alltoall or flex, and DeepSpeed-MoE and torchtitan run an all-to-all:
  // pplan prices the all-to-all unless flex is asked for. EP overlap is off everywhere.
  t.moe_dispatcher = MoeDispatcher::kAllToAll;
  t.overlap_moe_expert_parallel_comm = false;
  return t;
}

bool framework_default_dropout(Framework framework) {
  return framework == Framework::kMegatronLm || framework == Framework::kDeepSpeed;
}

bool overlaps_grad_reduce(const TrainingSpec& training, int zero) {
  return training.overlap_grad_reduce || (training.framework == Framework::kDeepSpeed && zero >= 3);
}

bool overlaps_param_gather(const TrainingSpec& training, int zero) {
  return training.overlap_param_gather || (training.framework == Framework::kDeepSpeed && zero >= 3);
}

bool offloads_activations(const TrainingSpec& training) {
  const bool megatron = runs_megatron(training.framework);
  return megatron && !training.cuda_graphs;
}

bool keeps_fp8_params(const TrainingSpec& training, int zero) {
  if (training.precision != Precision::kFp8) return false;
  if (training.fp8_param_gather_given) return training.fp8_param_gather;
  return training.framework == Framework::kMegatronCore && zero >= 1;
}

bool defers_gradient_sync(const TrainingSpec& training, const ParallelConfig& parallel) {
  return training.framework == Framework::kTorchtitan && parallel.pp > 1 && parallel.zero >= 2;
}

double kernels_per_layer_forward(Framework framework) {
  switch (framework) {
    case Framework::kMegatronCore:
    case Framework::kMegatronLm: return 12.0;
    case Framework::kDeepSpeed: return 22.0;
    case Framework::kTorchtitan: return 18.0;
  }
  return 12.0;
}

double kernels_per_local_expert_forward(Framework framework, bool fp8) {
  switch (framework) {
    case Framework::kMegatronCore:
    case Framework::kMegatronLm: return fp8 ? 4.0 : 2.0;
    case Framework::kDeepSpeed: return 3.0;
    case Framework::kTorchtitan: return 0.0;
  }
  return 2.0;
}

double expert_bias_bytes_per_element(Framework framework, bool backward) {
  return runs_megatron(framework) ? (backward ? 36.0 : 28.0) : 0.0;
}

double expert_bias_kernels_per_local_expert_forward(Framework framework) { return runs_megatron(framework) ? 2.0 : 0.0; }

double clamped_activation_bytes_per_element(Framework framework, bool backward) {
  return runs_megatron(framework) ? (backward ? 6.0 : 8.0) : 0.0;
}

double clamped_activation_kernels_forward(Framework framework) { return runs_megatron(framework) ? 3.0 : 0.0; }

bool syncs_host_before_experts(Framework framework) {
  return runs_megatron(framework);
}

double moe_expert_output_bytes_kept(Framework framework) {
  switch (framework) {
    case Framework::kMegatronCore:
    case Framework::kMegatronLm: return 0.0;
    case Framework::kTorchtitan: return 4.0;
    case Framework::kDeepSpeed: return 2.0;
  }
  return 2.0;
}

}  // namespace pplan
