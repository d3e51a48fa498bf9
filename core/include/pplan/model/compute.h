#pragma once
/// Time of one transformer layer on one GPU for one micro-batch: GEMMs, attention,
/// memory-bound kernels, and the tensor/context-parallel communication inside the layer.

#include "pplan/specs.h"

namespace pplan {

/// Share of HBM bandwidth that elementwise kernels (norms, activations, residuals) reach.
/// Stated as an assumption: well-fused elementwise kernels stream at 80–90% of peak.
inline constexpr double kHbmEfficiency = 0.8;
/// Fixed cost of one kernel: launch latency plus the idle tail before the next dependent
/// kernel starts (a few µs on current GPUs and PyTorch; stated as an assumption). It is why
/// larger micro-batches help small models (Narayanan et al. 2021 §3.4, Fig. 7).
inline constexpr double kKernelOverheadS = 4e-6;
/// Kernels of one layer's forward pass: 2 norms, QKV, rotary or bias, attention, output
/// projection, 2 residual/dropout, MLP up, activation, MLP down, ~4 TP collectives.
inline constexpr double kKernelsPerLayerForward = 16.0;
/// Backward FLOPs of flash attention relative to its forward: dQ, dK, dV (2×) plus the
/// recomputed scores (0.5×) (Dao 2023, FlashAttention-2 §3.2).
inline constexpr double kFlashBackwardRatio = 2.5;

/// Dense peak FLOP/s for the scenario's precision.
double peak_flops_per_s(const GpuSpec& gpu, Precision precision);

/**
 * Share of peak a GEMM of M×K by K×N reaches. Additive roofline: the tensor cores run at
 * gemm_efficiency·peak, and the operands and the result (2·(MK + KN + MN) bytes in bf16) must
 * cross HBM once, not hidden behind the math:
 *   time = 2MNK / (peak·gemm_efficiency) + 2(MK + KN + MN) / HBM bandwidth.
 * Small dimensions lower the arithmetic intensity, so narrow TP shards and small models run
 * below peak. No fitted constant beyond gemm_efficiency; peak/HBM is the datasheet balance.
 * Example: A100 (153 FLOP/byte), 4096³ at gemm_efficiency 0.9:
 *   1 / (1/0.9 + 153·3/4096) = 0.816.
 */
double gemm_efficiency(double m, double n, double k, const GpuSpec& gpu, Precision precision);

/// Seconds, per layer per micro-batch, on one GPU.
struct LayerTimes {
  double gemm_forward_s = 0;       ///< projections + MLP (+ router)
  double attention_forward_s = 0;  ///< attention core (flash, or batched GEMMs)
  double memory_forward_s = 0;     ///< memory-bound elementwise kernels
  double launch_forward_s = 0;     ///< fixed per-kernel overheads
  double tp_forward_s = 0;         ///< TP/SP collectives in the forward pass (exposed)
  double tp_backward_s = 0;        ///< TP/SP collectives in backward (overlap with wgrad applied)
  double cp_exposed_s = 0;         ///< CP K/V ring exchange not hidden behind attention
  double ep_exposed_s = 0;         ///< MoE all-to-all dispatch/combine, forward + backward
  double forward_s() const;        ///< forward, exposed comm included
  double backward_s() const;       ///< backward, exposed comm included
  double recompute_s = 0;          ///< extra forward work from activation recomputation
  double total_s() const { return forward_s() + backward_s() + recompute_s; }
};

/// Layer times of layer `layer_index` under `parallel` (dense or MoE by index).
LayerTimes layer_times(const Scenario& scenario, const ParallelConfig& parallel, int layer_index);

/// Forward + backward seconds of the LM head and loss for one micro-batch on the last stage.
double lm_head_times_s(const Scenario& scenario, const ParallelConfig& parallel);

/// Optimizer step seconds: Adam streams ~30 bytes per locally held optimizer parameter
/// (read grad, master, m, v; write master, m, v, bf16 weight) at HBM speed.
double optimizer_step_s(double optimizer_params_per_gpu, const GpuSpec& gpu);

}  // namespace pplan
