#pragma once
/// The constants of the kernel, communication and overlap models, in one place. Each is either
/// measured (a vendor benchmark, a kernel paper, nccl-tests: the source is in
/// core/presets/calibration/calibration.json beside the value) or fitted: fitted ones are fitted
/// by `pplan_calibrate` (tests/validation/calibrate.cpp) over the public runs in tests/data/,
/// which also prints the leave-one-source-out error the README quotes. Nothing is fitted per
/// case or per source.

namespace pplan {

/// Constants of one GPU architecture (Ampere, Hopper, Blackwell).
struct ArchitectureCalibration {
  /// Measured defaults for a custom GPU of this architecture that does not give its own.
  int sm_count = 132;
  double mamf_fraction_bf16 = 0.8;  ///< maximum achievable matmul FLOP/s / dense peak
  double mamf_fraction_fp8 = 0.7;
  /// Flash attention, causal, head dim 128: forward throughput approaches this share of the
  /// BF16 peak for long sequences and reaches half of it at `attention_half_keys` keys
  /// (measured kernel curves); backward runs at `attention_backward_ratio` of the forward rate.
  double attention_peak_fraction = 0.6;
  double attention_half_keys = 700;
  double attention_backward_ratio = 0.9;
  /// Measured on the GPU those curves come from: its tensor cores' dense BF16 FLOPs and its SFUs'
  /// exponentials per clock per SM. Softmax's exponentials run on the SFUs beside the MMAs, so a
  /// GPU with faster SFUs runs the same curve faster (kernels.h flash_attention_forward_s).
  double mma_bf16_flops_per_clock_per_sm = 4096;
  double softmax_exp_per_clock_per_sm = 16;
  /// Fitted: GEMM throughput inside a training step relative to the isolated MAMF figure
  /// (sustained clocks under power limits, L2 sharing, communication kernels on the SMs).
  double gemm_in_step = 0.9;
  /// Fitted: the same for attention kernels.
  double attention_in_step = 0.9;
  /// Measured: the relative standard deviation of one GPU's speed across a cluster of one SKU
  /// (manufacturing and power-management variability: Sinha et al., SC'22, arXiv 2208.11035,
  /// an 8% average range between a cluster's fastest and slowest GPU, outliers 1.5x slower).
  /// A synchronous step waits for its slowest GPU (model/estimate.h straggler_s).
  double gpu_speed_spread = 0.0;
};

/// Every constant of the time model.
struct Calibration {
  ArchitectureCalibration ampere;
  ArchitectureCalibration hopper;
  ArchitectureCalibration blackwell;
  /// Fitted (vTrain's measured single-node runs): host time to issue one kernel in eager
  /// PyTorch. The GPU idles when a layer's kernels are shorter than this.
  double host_kernel_s = 20e-6;
  /// Fitted (vTrain): host time to issue one collective in eager PyTorch (ProcessGroupNCCL work
  /// and event bookkeeping), on top of its kernel.
  double host_collective_s = 50e-6;
  /// Fitted: share of overlapped communication time that still slows compute (NCCL kernels
  /// take SMs and HBM bandwidth from the GEMMs they hide behind).
  double overlap_slowdown = 0.3;
  /// Measured: share of HBM bandwidth streaming (elementwise) kernels reach.
  double hbm_efficiency = 0.8;
  /// Measured: share of softmax's SFU clocks an attention kernel leaves exposed beside its
  /// tensor-core clocks, the rest hidden behind them (kernels.h flash_attention_forward_s).
  double softmax_exp_exposed = 0.673;
  // NCCL's achievable bandwidths and latencies are measured constants of comm.h.
};

/// The constants of `architecture` ("ampere" | "hopper" | "blackwell"; others read as Hopper).
const ArchitectureCalibration& architecture_calibration(const Calibration& calibration,
                                                        const char* architecture);

}  // namespace pplan
