#pragma once
/// Time of one transformer layer on one GPU for one micro-batch: its GEMMs by shape, attention
/// by kernel, streaming kernels, FP8 casts, the host's launch cost, and the tensor-, context-
/// and expert-parallel communication inside the layer (exposed or overlapped as the scenario's
/// software switches say).

#include <array>

#include "pplan/model/kernels.h"
#include "pplan/specs.h"

namespace pplan {

/// Seconds, per layer per micro-batch, on one GPU.
struct LayerTimes {
  double gemm_forward_s = 0;       ///< projections + MLP (+ router) GEMMs
  double gemm_backward_s = 0;      ///< their dgrad + wgrad
  double attention_forward_s = 0;  ///< attention core (flash, or batched GEMMs + softmax)
  double attention_backward_s = 0;
  double memory_forward_s = 0;     ///< streaming kernels: norms, activations, residuals, casts
  double memory_backward_s = 0;
  double host_forward_s = 0;       ///< host time to issue the forward's kernels
  double host_backward_s = 0;
  /// MoE under a framework that syncs before its experts (syncs_host_before_experts): the
  /// routed experts' forward GEMMs (part of gemm_forward_s) and the host time to launch them
  /// (part of host_forward_s). The host cannot run ahead into them, so forward_s() takes the
  /// rest of the pass and the experts each at its own pace.
  double expert_gemm_forward_s = 0;
  double host_expert_forward_s = 0;
  double tp_forward_s = 0;         ///< TP/SP collectives not hidden behind GEMMs
  double tp_backward_s = 0;
  double cp_forward_s = 0;         ///< CP K/V ring not hidden behind attention
  double cp_backward_s = 0;
  double ep_forward_s = 0;         ///< MoE all-to-all dispatch + combine
  double ep_backward_s = 0;
  double recompute_s = 0;          ///< forward work rerun in the backward (recomputation)
  /// Forward time of each selective-recomputation module (RecomputeModule bit order; the
  /// attention core's is attention_forward_s): what rerunning it costs.
  std::array<double, kRecomputeModuleCount> module_forward_s{};
  /// GPU work of each pass (math, streaming, exposed communication).
  double gpu_forward_s() const;
  double gpu_backward_s() const;
  /// Passes as they take: the GPU waits for the host where the host is slower.
  double forward_s() const;
  double backward_s() const;
  double total_s() const { return forward_s() + backward_s() + recompute_s; }
  /// Of total_s(), the time the GPU waits for the host.
  double host_stall_s() const;
};

/**
 * Extra HBM bytes to quantise one element for an FP8 GEMM, by recipe. Transformer Engine fuses
 * the cast into the kernel that produces the tensor (LayerNormLinear, LayerNormMLP write FP8),
 * so what remains is the transposed copy for the weight gradient (delayed scaling: 1 + 1
 * re-read, 2), an amax pass over the BF16 tensor before casting (current scaling: + 2, 4), or
 * row- and column-wise copies with one scale per block (block / MXFP8: 2·(1 + 1/32)). An
 * estimate from the kernels' data movement, stated.
 */
double fp8_cast_bytes_per_element(Fp8Recipe recipe);

/// Layer times of layer `layer_index` under `parallel` (dense or MoE by index). `gemm_memo`:
/// GEMM times kept across calls for this scenario (the search's), or none.
LayerTimes layer_times(const Scenario& scenario, const ParallelConfig& parallel, int layer_index,
                       GemmMemo* gemm_memo = nullptr);

/// A lower bound on layer_times(...).total_s() for every recompute kind and every ep and etp at
/// this (tp, cp, micro_batch, sequence_parallel): the layer's GEMMs, attention, streaming and
/// kernels as layer_times() prices them, but the routed experts' GEMMs at gemm_floor_s(), and no
/// communication or host time. The search prunes expert layouts with it before timing them.
double layer_time_floor_s(const Scenario& scenario, const ParallelConfig& parallel, int layer_index,
                          GemmMemo* gemm_memo = nullptr);

/// A lower bound on layer_time_floor_s() (so on total_s()) with every GEMM at gemm_floor_s():
/// its GEMMs, attention core and streaming all scale with the tokens, so it is linear in the
/// micro-batch (to rounding), and the search scales it from one micro-batch instead of timing
/// each micro-batch's floor.
double layer_work_floor_s(const Scenario& scenario, const ParallelConfig& parallel, int layer_index);

/// What layer_times() adds to layer_time_floor_s() at least for this ep and etp: the MoE
/// dispatch and combine of both passes where no overlap hides them, else 0.
double expert_dispatch_floor_s(const Scenario& scenario, const ParallelConfig& parallel, int layer_index);

/// What layer_times() adds to layer_time_floor_s() at least for this ep and etp besides the
/// dispatch: the routed experts' GEMMs at this layout's tiles over their floor (few tokens per
/// expert fill few tiles). Independent of the dispatch floor: the two add.
double expert_tiles_floor_s(const Scenario& scenario, const ParallelConfig& parallel, int layer_index,
                            GemmMemo* gemm_memo = nullptr);

/// A lower bound on layer_times(...).total_s() from the host alone: the time to launch the
/// layer's kernels in both passes (collectives left out). It grows with the experts local to a
/// GPU, so it bounds small-EP layouts of many experts where the GPU floor does not.
double layer_host_floor_s(const Scenario& scenario, const ParallelConfig& parallel, int layer_index);

/// The forward time `recompute` reruns in the backward of `lt` (its `forward_s()` passed in:
/// full recomputation reruns all of it).
double recomputed_s(const LayerTimes& lt, Recompute recompute, unsigned modules, double forward_s);

/// `lt` with the recomputation of `recompute` (the one field it changes): the search times a
/// layer once and derives the three kinds.
LayerTimes with_recompute(LayerTimes lt, Recompute recompute, unsigned modules = kRecomputeCoreAttn);

/// Forward + backward seconds of the LM head and loss for one micro-batch on the last stage.
double lm_head_times_s(const Scenario& scenario, const ParallelConfig& parallel);

/// Forward + backward seconds of one MTP module's 2h -> h projection (DeepSeek-V3 §2.2), per
/// micro-batch on the last stage; the module's layer and its pass of the shared head are timed
/// as any layer and lm_head_times_s().
double mtp_projection_times_s(const Scenario& scenario, const ParallelConfig& parallel);

/// Optimizer step seconds: Adam streams each locally held optimizer parameter's fp32 gradient,
/// its state in and out (master, m, v: `state_bytes_per_param`, memory.h) and the bf16 weight
/// at HBM speed: 4 + 2·state + 2 bytes, so 30 with fp32 state (12 bytes), 22 with bf16 moments
/// beside fp32 master weights (8), 18 with all-bf16 state (6).
double optimizer_step_s(double optimizer_params_per_gpu, double state_bytes_per_param, const Device& device);

}  // namespace pplan
