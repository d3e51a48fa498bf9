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

}  // namespace pplan
