#pragma once
/// The pipeline schedule itself: which pass each stage runs when (the timeline picture).

#include <string>
#include <vector>

namespace pplan {

/// One forward or backward pass of one micro-batch through one model chunk of one stage.
/// Times in units of one full-stage forward (a chunk's forward takes 1/v, its backward 2/v).
struct ScheduledPass {
  int stage = 0;
  bool forward = true;
  int microbatch = 0;
  int chunk = 0;  ///< model chunk (virtual stage) on this stage, 0 .. v−1
  double start_units = 0;
  double end_units = 0;
};

struct PipelineSchedule {
  bool drawn = false;
  std::string reason;  ///< why there is no schedule, when !drawn
  int pp = 0;
  int vpp = 0;
  long long microbatches = 0;
  long long total_passes = 0;       ///< 2·p·v·m
  double makespan_units = 0;        ///< first forward to last backward
  double ideal_units = 0;           ///< one stage's own work: 3·m
  double idle_share = 0;            ///< idle over p·makespan: the bubble's share of the step
  double bubble_over_ideal = 0;     ///< (makespan − ideal)/ideal
  /// The passes in time order; when there are more than the cap, only those that start before
  /// `shown_until_units` (the warm-up and the steady phase), and `complete` is false.
  std::vector<ScheduledPass> passes;
  bool complete = true;
  double shown_until_units = 0;
};

/// Most passes simulated (beyond: too large to draw) and most passes returned (a window of the
/// step's start: a 700-pixel picture needs no more, and the answer stays small).
constexpr long long kMaxSimulatedPasses = 2000000;
constexpr long long kMaxDrawnPasses = 3000;  // about 450 KB of JSON

/**
 * Simulates 1F1B (v = 1, Narayanan et al. 2021 §2.2.1) or interleaved 1F1B with v model chunks
 * per stage (§2.2.2), each stage running its ops in Megatron-LM's order (warm-up forwards,
 * one-forward-one-backward, cool-down backwards; megatron/core/pipeline_parallel/schedules.py)
 * as soon as the pass it depends on has finished. A backward takes twice a forward.
 * Example: p = 4, v = 1, m = 8 -> makespan 3·(8 + 3) = 33, idle share 3/11.
 */
PipelineSchedule pipeline_schedule(int pp, int vpp, long long microbatches,
                                   long long max_drawn_passes = kMaxDrawnPasses);

}  // namespace pplan
