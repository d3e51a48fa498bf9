#pragma once
/// One plan's estimate: memory, pipeline, step time and its breakdown, MFU, diagnostics.

#include <vector>

#include "pplan/model/compute.h"
#include "pplan/diagnostics.h"
#include "pplan/model/memory.h"
#include "pplan/model/pipeline.h"
#include "pplan/specs.h"

namespace pplan {

/// Memory per GPU on the peak stage, bytes.
struct MemoryEstimate {
  double weights_bytes = 0;
  double gradients_bytes = 0;
  double optimizer_bytes = 0;
  double activations_bytes = 0;
  double reserved_bytes = 0;  ///< CUDA context, workspaces, fragmentation
  double total_bytes = 0;
  double capacity_bytes = 0;  ///< physical HBM
  int peak_stage = 0;
  double offloaded_bytes = 0;  ///< activations held in host memory (parallel.offload_layers)
};

/// Where one step's time goes, seconds. Sums to step_time_s.
struct TimeBreakdown {
  double compute_s = 0;    ///< forward + backward of every micro-batch on the slowest stage
  double host_s = 0;       ///< the GPU waiting for the host to issue kernels
  double recompute_s = 0;  ///< activation recomputation
  double tp_comm_s = 0;    ///< exposed TP/SP collectives (NVLink)
  double cp_comm_s = 0;    ///< exposed CP ring exchange
  double ep_comm_s = 0;    ///< exposed MoE all-to-all
  double pp_comm_s = 0;    ///< exposed pipeline point-to-point
  double bubble_s = 0;     ///< pipeline fill and drain
  double dp_comm_s = 0;    ///< exposed gradient / ZeRO collectives
  double offload_s = 0;    ///< activation copies to and from host memory not hidden by compute
  double optimizer_s = 0;  ///< optimizer step
  /// The wait for the slowest GPU: each synchronous step runs at the pace of the slowest of
  /// its N GPUs, spread·E[max of N standard normals] slower than the median on its compute,
  /// recomputation and bubble (ArchitectureCalibration::gpu_speed_spread).
  double straggler_s = 0;
  double total_s() const;
};

/// The method's hand calculation (the worked example, examples/gpt3-175b-1024-a100.json), beside the exact figures.
struct MethodFigures {
  double params = 0;             ///< Ψ: nominal size when the preset has one, else counted
  bool params_nominal = false;   ///< Ψ is the published size, not the architecture count
  double model_states_bytes = 0; ///< 16·Ψ
  long long min_gpus_per_replica = 0;  ///< ceil(16Ψ / memory as marketed (80 GB)); 64-bit
  double model_states_bytes_per_gpu = 0;  ///< 16Ψ/(t·p)
  double activations_bytes = 0;  ///< one layer's activations × L (× interleave factor)
  double total_bytes = 0;
  bool fits = false;
  int half_pp = 0;  ///< the next smaller pp (p/2), for "p = 4 does not fit"
  double half_pp_model_states_bytes_per_gpu = 0;
  bool half_pp_fits = false;
  double distributed_optimizer_bytes_per_gpu = 0;  ///< 4Ψ/(t·p) + 12Ψ/(t·p·N)
  /// The hand count for this plan's ZeRO stage: 16Ψ/(t·p) sharded as the plan shards (the
  /// distributed optimizer 4 + 12/N, ZeRO-2 2 + 14/N, ZeRO-3 16/N bytes), plus activations;
  /// `fits` judges this one, `total_bytes` stays the plain 16-byte figure of the worked example.
  double plan_total_bytes = 0;
  double bubble_ratio = 0;  ///< (p−1)/(v·m)
};

/// Everything pplan says about one complete parallel configuration.
struct Estimate {
  ParallelConfig parallel;
  bool feasible = false;        ///< no error diagnostic (contract: "fits")
  bool fits_in_memory = false;
  MemoryEstimate memory;
  StageSplit split;
  double microbatches = 0;
  double bubble_fraction = 0;  ///< share of the pipeline's time in the bubble, [0, 1)
  double bubble_ratio = 0;     ///< bubble over ideal compute, (p−1)/(v·m) (the method's figure)
  /// False when the grid does not tile the cluster: then no time, MFU or throughput is given.
  bool timed = true;
  double step_time_s = 0;
  TimeBreakdown time;
  double model_flops_per_step = 0;
  double hardware_flops_per_step = 0;
  double mfu = 0;
  double mfu_causal = 0;  ///< MFU with the causal half of the score matrix not counted
  double hfu = 0;
  double tflops_per_gpu = 0;  ///< achieved model TFLOP/s per GPU
  double tokens_per_s = 0;
  double days_to_train = 0;   ///< 0 when no token budget is given
  MethodFigures method;
  std::vector<Diagnostic> diagnostics;   ///< empty when evaluated with detailed = false
  const char* rejection_code = nullptr;  ///< the first error's code, in both modes
};

/// Resolves a scenario's pinned fields into a complete config, with documented defaults:
/// tp, pp, cp, ep, vpp, micro_batch 1; dp = gpus / (tp·pp·cp); sequence_parallel = tp > 1;
/// recompute none; zero 0.
ParallelConfig resolve_defaults(const Scenario& scenario);

/// Structural checks only (divisibility, counts): the cheap part of feasibility.
std::vector<Diagnostic> check_structure(const Scenario& scenario, const ParallelConfig& parallel,
                                        const StageSplit& split);

/// The code of the first structural error, or nullptr: check_structure without the messages.
const char* first_structural_error(const Scenario& scenario, const ParallelConfig& parallel,
                                   const StageSplit& split);

/// Per-layer times of a configuration's dense and MoE layers. They depend only on tp, cp, ep,
/// micro_batch, sequence_parallel and recompute, so the search computes them once per tuple.
struct LayerTimesPair {
  LayerTimes dense;
  LayerTimes moe;
};

/// The layer times evaluate() uses for `parallel` (`gemm_memo`: see layer_times()). A dense
/// layer's times do not depend on ep or etp: `dense`, when given, are those times for this
/// (tp, cp, micro_batch, sequence_parallel), already computed (the search's cache).
LayerTimesPair layer_times_for(const Scenario& scenario, const ParallelConfig& parallel,
                               GemmMemo* gemm_memo = nullptr, const LayerTimes* dense = nullptr);

/// The dense layer's times alone (layer_times_for's `dense`).
LayerTimes dense_layer_times(const Scenario& scenario, const ParallelConfig& parallel, GemmMemo* gemm_memo = nullptr);

/// How much of an estimate to produce.
struct EvaluateOptions {
  /// Diagnostic messages, warnings and the method figures; the search turns them off and
  /// re-evaluates only the plans it returns. Numbers are identical either way.
  bool detailed = true;
  const LayerTimesPair* layer_times = nullptr;  ///< precomputed (the search's cache)
  const StageMemory* peak_memory = nullptr;     ///< precomputed peak_stage_memory()
};

/// The full estimate of one configuration. Never throws; infeasibility is in diagnostics.
Estimate evaluate(const Scenario& scenario, const ParallelConfig& parallel,
                  const EvaluateOptions& options = {});

}  // namespace pplan
