#pragma once
/// Pipeline parallelism: how layers split over stages, micro-batches and the bubble.

#include <algorithm>
#include <string>

#include "pplan/specs.h"
#include "pplan/stage_split.h"

namespace pplan {

/// Share of a stage's layers whose activations are recomputed under full recomputation:
/// recompute_layers per model chunk (vpp chunks per stage), or all of them; 0 without full
/// recomputation. Example: 8 layers, vpp 2, recompute_layers 1 -> 2/8.
inline double recomputed_share(const ParallelConfig& parallel, int layers_on_stage) {
  if (parallel.recompute != Recompute::kFull || layers_on_stage <= 0) return 0.0;
  if (parallel.recompute_layers <= 0) return 1.0;
  return std::min(1.0, double(parallel.recompute_layers) * parallel.vpp / layers_on_stage);
}

/// The rank that holds the LM head (and MTP modules): the last, or under a V-shaped schedule the
/// first, whose second chunk is the model's last.
inline int head_rank(const ParallelConfig& parallel) {
  return is_v_shape(parallel.schedule) ? 0 : parallel.pp - 1;
}

/// Micro-batches per step per pipeline: m = global_batch / (dp · micro_batch).
inline double microbatches(int global_batch, int dp, int micro_batch) {
  return double(global_batch) / (double(dp) * micro_batch);
}

/**
 * Pipeline bubble over the ideal compute time: (p−1)/(v·m), the method's figure.
 * Narayanan et al. 2021 §2.2.1 (1F1B) and §2.2.2 (interleaved divides it by v).
 * Example: p = 8, m = 96, v = 1 -> 7/96 = 0.0729. Above 1 when m < p − 1.
 */
double bubble_ratio(int pp, int vpp, double microbatches);

/**
 * Share of the pipeline's time spent idle in the bubble, a fraction in [0, 1):
 * (p−1)/v of (m + (p−1)/v) stage times, i.e. (p−1)/(v·m + p − 1).
 * Example: p = 8, m = 96, v = 1 -> 7/103 = 0.068.
 */
double bubble_fraction(int pp, int vpp, double microbatches);

/**
 * Micro-batch-layers of activations stage `stage` holds at its peak, in units of one layer's
 * activations for one micro-batch. 1F1B: min(p − k, m) micro-batches of the stage's layers.
 * Interleaved: Megatron's warm-up of 2(p−k−1) + (v−1)p chunks plus the one in flight, each of
 * layers/v layers; on stage 0 that is L/p · p · (1 + (p−1)/(p·v)) (Korthikanti et al. 2022 §4.2.3).
 */
inline double inflight_layer_microbatches(int stage, int pp, int vpp, double microbatches,
                                          int layers_on_stage) {
  if (vpp <= 1) {
    return std::min(double(pp - stage), microbatches) * layers_on_stage;
  }
  const double chunks = 2.0 * (pp - stage - 1) + double(vpp - 1) * pp + 1.0;
  return std::min(chunks, microbatches * vpp) * layers_on_stage / vpp;
}

/**
 * The same for any schedule, in units of one layer's activations for one micro-batch (DeepSeek-AI
 * 2024 Table 2 and deepseek-ai/DualPipe's README, "activation per device", and Qi et al. 2023):
 * 1F1B and interleaved as above; ZB-H1 keeps 1F1B's peak; ZB-V holds p micro-batches of the
 * rank's layers on every rank; DualPipe and DualPipeV p + 1 and 2p + 1 chunks, each half the
 * rank's layers (`layers_on_rank`: under DualPipe its stage's and its mirror's). Never more than
 * the step's micro-batches hold.
 * Example: DualPipe, p = 16, 4 + 4 layers on the rank -> 17 · 4 = 68.
 */
inline double inflight_layer_microbatches(ScheduleKind schedule, int stage, int pp, int vpp, double microbatches,
                                          int layers_on_rank) {
  switch (schedule) {
    case ScheduleKind::kZbV: return std::min(double(pp), microbatches) * layers_on_rank;
    case ScheduleKind::kDualPipe: return std::min(pp + 1.0, microbatches) * layers_on_rank / 2.0;
    case ScheduleKind::kDualPipeV: return std::min(2.0 * pp + 1.0, 2.0 * microbatches) * layers_on_rank / 2.0;
    default: return inflight_layer_microbatches(stage, pp, vpp, microbatches, layers_on_rank);
  }
}

/// One micro-batch's passes through the slowest stage (seconds): forward F, backward B (input and
/// weight gradients, recomputation included) and W, the weight-gradient part of B.
struct StagePasses {
  double forward_s = 0;
  double backward_s = 0;
  double weight_grad_s = 0;
};

/**
 * Seconds the slowest stage idles per step, by the schedule's bubble (p ranks, v chunks each; F,
 * B, W of one rank's layers):
 *   1F1B, interleaved: (p−1)(F+B)/v (Narayanan et al. 2021 §2.2);
 *   ZB-H1: (p−1)(F+B−2W)/v (Qi et al. 2023 §3, ZB1P in DeepSeek-AI 2024 Table 2);
 *   ZB-V: (p−1)(F+B−3W)/2, i.e. (p−1)(F+I−2W) over half-size chunks with the input gradient
 *   I = B − W: zero at F = I = W, where Qi et al. 2023 §6 and sail-sg/zero-bubble-pipeline-
 *   parallelism 39f2c186 README give ZB-V no bubble; neither gives a closed form (derived, stated);
 *   DualPipe: (p/2−1)(F&B+B−3W), F&B the overlapped pair (F + B: each hides the other's
 *   communication) (DeepSeek-AI 2024 Table 2);
 *   DualPipeV: the same per chunk over 2p stages, (p−1)(F&B+B−3W)/2 (deepseek-ai/DualPipe README).
 * Never negative. Example: DualPipe, p = 16, F = 1, B = 2, W = 1 -> 7 · (3 + 2 − 3) = 14.
 */
double pipeline_bubble_s(ScheduleKind schedule, int pp, int vpp, const StagePasses& passes);

}  // namespace pplan
