#pragma once
/// Memory per GPU: model states (weights, gradients, optimizer) and activations.

#include <vector>

#include "pplan/model/pipeline.h"
#include "pplan/specs.h"

namespace pplan {

/// Bytes per parameter of mixed-precision Adam as the method counts them (16 in all;
/// Rajbhandari et al. 2020 §3.1). The exact figures follow the framework: model_state_bytes.
inline constexpr double kWeightBytesPerParam = 2.0;     ///< bf16 weights
inline constexpr double kGradientBytesPerParam = 2.0;   ///< bf16 gradients
inline constexpr double kOptimizerBytesPerParam = 12.0; ///< fp32 master, momentum, variance
/// training.optimizer_state_dtype "bf16": bf16 momentum and variance (2 + 2) and the master
/// weights in 2 bytes beside the bf16 weights. Megatron-Core's precision-aware optimizer keeps
/// only the low 16 bits of each fp32 master weight (store_param_remainders, on by default;
/// Megatron-LM d98e8a64 megatron/core/optimizer/optimizer_config.py); NeMo's
/// distributed_fused_adam with optim.dtype bf16 keeps a bf16 copy (Apex DistributedFusedAdam
/// `dtype`, `store_params`; NVIDIA/apex apex/contrib/optimizers/distributed_fused_adam.py);
/// DeepSpeed's bf16_master_weights_and_grads + bf16_optimizer_states a bf16 master (edaa7221
/// docs/_pages/config-json.md: "~6 bytes/param").
inline constexpr double kBf16OptimizerBytesPerParam = 6.0;
/// With fp32 master weights beside the bf16 moments, 4 + 2 + 2: torchtitan's
/// fused_opt_states_bf16 over FSDP2's fp32 sharded parameters (b5bcd76c
/// docs/bf16_optimizer_states.md), and Megatron-FSDP (ZeRO-2/3), whose own main params are fp32
/// (--megatron-fsdp-main-params-dtype) and FusedAdam keeps none (Megatron-LM d98e8a64
/// megatron/core/optimizer/__init__.py).
inline constexpr double kFp32MasterBf16OptimizerBytesPerParam = 8.0;

/// Bytes per parameter a framework holds, before sharding.
struct ModelStateBytes {
  double weights = kWeightBytesPerParam;
  double gradients = kGradientBytesPerParam;
  double optimizer = kOptimizerBytesPerParam;
  /// FP8 copies of the weights Transformer Engine keeps beside the BF16 ones (the weight and
  /// its transpose, one byte each), for the parameters of the layers a GPU holds.
  double fp8_weight_copies = 0;
  /// Bytes per layer parameter the data-parallel weight all-gather moves: BF16, or one byte
  /// with FP8 parameters (training.fp8_param_gather; the embedding and head stay BF16).
  double gathered_layer_weights = kWeightBytesPerParam;
};

/**
 * The framework's bytes per parameter: BF16 weights (2), gradients in fp32 (4, Megatron-LM's
 * main grads with --bf16: 18 bytes in all, Megatron-LM docs dist_optimizer.md) or BF16 (2, the
 * NVIDIA recipes' grad_reduce_in_fp32 = False, DeepSpeed's default grad_accum_dtype), fp32
 * master weights and Adam moments (12; with training.optimizer_state_dtype "bf16" 6, or 8 where
 * the master weights stay fp32: torchtitan, Megatron-FSDP at `zero` >= 2), and
 * with FP8 the TE weight copies (2).
 */
ModelStateBytes model_state_bytes(const Scenario& scenario, int zero);
/// Held back on every GPU for the CUDA context (~0.5–1 GB), cuBLAS/NCCL workspaces and
/// buffers, and allocator fragmentation. An assumption, stated: a few GB in practice.
inline constexpr double kReservedBytes = 3e9;

/**
 * Activation bytes of one transformer layer for one micro-batch on one GPU.
 * Korthikanti et al. 2022 §4 (eq. 1–2, Table 2), generalised term by term:
 *   replicated over TP: norms 4 + QKV input 2 + MLP input 2 + dropout masks 2   (·s·b·h)
 *   split over TP:      Q 2 + K,V 4·kv/a + attention output 2 + MLP inner 4f/h (GeLU) or
 *                       6f/h (fused SwiGLU) + scores (2 + 3·dropout)·a·s/h unless flash or
 *                       selective recompute drop them.
 * GPT (f = 4h, dropout, no flash): s·b·h·(10 + 24/t + 5·a·s/(h·t)); with SP everything is /t;
 * full recompute keeps only the layer input, 2·s·b·h (/t with SP).
 * Example: GPT-3, s = 2048, b = 1, t = 8, SP + selective: 34·s·b·h/8 = 1.0695e8 bytes.
 * MoE layers (`layer_index` past the dense ones): the MLP is top_k + shared experts wide, plus
 * 2·k·h per token for the dispatched copies and, where the framework keeps them for the
 * router's gradient, the k expert outputs (framework.h moe_expert_output_bytes_kept; not split
 * over TP). Example: Mixtral, s = 4096, b = 1, t = 1, Megatron-Core: (8 + 2 + 4·8/32 + 2 +
 * 6·2·14336/4096 + 2·2)·s·b·h = 59·s·b·h; DeepSpeed, which keeps the bf16 outputs, 63.
 */
double layer_activation_bytes(const Scenario& scenario, const ParallelConfig& parallel,
                              int layer_index = 0);

/// Activation bytes the first parallel.offload_layers layers keep in host memory (one stage, one
/// micro-batch in flight): their layer_activation_bytes, summed.
double offloaded_activation_bytes(const Scenario& scenario, const ParallelConfig& parallel);

/// Host memory the offloaded activations may use: the GPU's share less the same headroom as HBM.
inline double usable_host_memory_bytes(const Scenario& scenario) {
  return scenario.cluster.gpu.host_memory_bytes * (1.0 - scenario.training.memory_headroom);
}

/// MoE layers among the layers of stage `stage` (the leading dense layers excluded).
int moe_layers_on_stage(const ModelSpec& model, const StageSplit& split, int stage, int pp);

/// Multi-token-prediction modules on `stage`: all with the LM head (head_rank(): the last stage,
/// as Megatron places them, or the first under a V-shaped schedule).
int mtp_layers_on_stage(const ModelSpec& model, const ParallelConfig& parallel, int stage);

/// Expert layers on `stage` counting the MTP modules there (of the last layer's kind).
int moe_layers_with_mtp(const ModelSpec& model, const ParallelConfig& parallel, const StageSplit& split, int stage);

/// Stages that can set the memory or time peak: the first, the second (most micro-batches in
/// flight among the middle ones), the first middle stage holding only MoE layers (when the
/// leading dense layers end inside a stage, the next one holds more experts), and the last.
/// Every other stage is dominated by one of these.
/// Up to four stage indices, without allocating (the search asks for them per configuration).
struct StageList {
  int stages[4] = {0, 0, 0, 0};
  int count = 0;
  void push(int stage) {
    if (count < 4) stages[count++] = stage;
  }
  const int* begin() const { return stages; }
  const int* end() const { return stages + count; }
};

StageList candidate_stages(const ModelSpec& model, const StageSplit& split, int pp);

/// Memory of one pipeline stage, bytes.
struct StageMemory {
  int stage = 0;
  double weights_bytes = 0;
  double gradients_bytes = 0;
  double optimizer_bytes = 0;
  double activations_bytes = 0;
  double reserved_bytes = kReservedBytes;
  double total_bytes() const {
    return weights_bytes + gradients_bytes + optimizer_bytes + activations_bytes + reserved_bytes;
  }
};

/// Parameters one GPU of a stage holds before ZeRO: dense ones (TP-sharded) and routed
/// experts (EP- and expert-TP-sharded), which ZeRO shards over different groups.
struct StageParams {
  double dense = 0;
  double expert = 0;
  /// The part of `dense` outside the transformer layers: input embedding, LM head, final norm.
  double embedding_and_head = 0;
  double total() const { return dense + expert; }
};

/// Parameters held by one GPU of stage `stage` (TP-, EP-sharded, before ZeRO).
StageParams stage_params_per_gpu(const Scenario& scenario, const ParallelConfig& parallel,
                                 const StageSplit& split, int stage);

/// What one GPU of pipeline rank `rank` holds: its stage's parameters and layers (MTP modules
/// included), and under DualPipe the mirrored stage p−1−rank's as well, a second full copy
/// with its own gradients and optimizer state (DeepSeek-AI 2024 §3.2.1, Table 2: 2× parameters;
/// pplan shards the copy as the plan's ZeRO stage shards the first).
struct RankParams {
  StageParams params;
  int layers = 0;
  int moe_layers = 0;
};
RankParams rank_params(const Scenario& scenario, const ParallelConfig& parallel, const StageSplit& split, int rank);

/// Memory of stage `stage`: ZeRO shards over dp·cp (Megatron's distributed optimizer
/// shards over the DP×CP group, Megatron-LM d98e8a64 arguments.py).
StageMemory stage_memory(const Scenario& scenario, const ParallelConfig& parallel,
                         const StageSplit& split, int stage);

/// The stage with the most memory (first, second or last: the others are dominated).
StageMemory peak_stage_memory(const Scenario& scenario, const ParallelConfig& parallel,
                              const StageSplit& split);

// The same figures from parts computed once: the search varies ZeRO, the micro-batch count and
// the recomputed layer count (a bisection) over fixed parameters and per-layer activations.

/// Weights, gradients and optimizer state one GPU of a stage holds after ZeRO sharding.
struct StageStateBytes {
  double weights = 0;
  double gradients = 0;
  double optimizer = 0;
};

/// The candidate stages of a split, the parameters one GPU of each holds, and their model
/// state under each ZeRO stage 0–3. Depends on tp, cp, dp, pp, ep, the split and the schedule
/// (a DualPipe rank holds two stages; a V-shaped one the head on rank 0) only.
struct CandidateStageParams {
  StageList stages;
  StageParams params[4];
  int layers[4] = {0, 0, 0, 0};      ///< transformer layers of each stage
  int moe_layers[4] = {0, 0, 0, 0};  ///< of which MoE
  StageStateBytes state_by_zero[4][4];  ///< [candidate][ZeRO stage]
};
CandidateStageParams candidate_stage_params(const Scenario& scenario, const ParallelConfig& parallel,
                                            const StageSplit& split);

/// One micro-batch's activation bytes per GPU: the first layer and the last (the MoE one when
/// the model has experts), as configured and with nothing recomputed (a partial recompute
/// mixes the two), and the last stage's logits. Depends on tp, cp, the micro-batch, sp and
/// the recompute kind only.
struct LayerActivationParts {
  double first_layer_bytes = 0;
  double last_layer_bytes = 0;
  double first_layer_kept_bytes = 0;
  double last_layer_kept_bytes = 0;
  double logits_bytes = 0;
};
LayerActivationParts layer_activation_parts(const Scenario& scenario, const ParallelConfig& parallel);

StageMemory peak_stage_memory(const Scenario& scenario, const ParallelConfig& parallel,
                              const CandidateStageParams& params, const LayerActivationParts& activations);

/// The activation bytes of each candidate stage: they depend on the micro-batch, vpp, sp and
/// recomputation, not on ep or ZeRO, so the search computes them once for all of those.
struct CandidateActivations {
  double bytes[4] = {0, 0, 0, 0};
};
CandidateActivations candidate_activation_bytes(const Scenario& scenario, const ParallelConfig& parallel,
                                                const CandidateStageParams& params,
                                                const LayerActivationParts& activations);
/// peak_stage_memory() from activations computed once.
StageMemory peak_stage_memory(const ParallelConfig& parallel, const CandidateStageParams& params,
                              const CandidateActivations& activations);
/// Whether peak_stage_memory(...).total_bytes() <= capacity_bytes, stopping at the first stage over it.
bool every_stage_fits(const Scenario& scenario, const ParallelConfig& parallel,
                      const CandidateStageParams& params, const LayerActivationParts& activations,
                      double capacity_bytes);

}  // namespace pplan
