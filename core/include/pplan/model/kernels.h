#pragma once
/// Kernel times on one GPU, from shapes, bytes and the GPU's measured rates: GEMMs (tile and
/// wave quantization plus an HBM roofline), attention (flash kernels by sequence length and
/// head dim, or the unfused batched-GEMM path), streaming kernels, and the host's launch cost.

#include <cstddef>
#include <vector>

#include "pplan/calibration.h"
#include "pplan/specs.h"

namespace pplan {

/// gemm_s() results of one device by shape: a search times the same GEMMs for many
/// configurations (every ep shares a layer's attention and dense GEMMs).
class GemmMemo {
 public:
  struct Shape {
    double m, n, k, batch;
    Precision precision;
    bool operator==(const Shape& o) const {
      return m == o.m && n == o.n && k == o.k && batch == o.batch && precision == o.precision;
    }
  };
  /// The seconds stored for `shape`, or nullptr.
  const double* find(const Shape& shape) const;
  void store(const Shape& shape, double seconds);

 private:
  /// Open addressing with linear probing in one array: a search looks a shape up millions of
  /// times, and a node-based map's pointer chase cost more than timing the GEMM again. A slot
  /// is 40 bytes (the precision rides on the batch's sign, an empty slot has m = 0): a large
  /// search holds thousands of shapes, and most of a lookup's time is the slot's cache miss.
  struct Slot {
    double m = 0, n = 0, k = 0, signed_batch = 0;
    double seconds = 0;
  };
  static Slot key_of(const Shape& shape);
  static bool same_key(const Slot& a, const Slot& b);
  std::size_t home(const Slot& key) const;
  /// The slot holding `key`, or the empty one it would go in.
  std::size_t free_slot(const Slot& key) const;
  std::vector<Slot> slots_;
  std::size_t used_ = 0;
};

/// What kernel timing reads of one GPU: its spec and the constants of its architecture, and
/// optionally a memo of GEMM times (only for one scenario's GPU and calibration).
struct Device {
  const GpuSpec& gpu;
  const Calibration& calibration;
  const ArchitectureCalibration& arch;
  GemmMemo* gemm_memo = nullptr;
  int sm_count() const;
  double mamf_fraction(Precision precision) const;
};

/// The device of a scenario's GPU.
Device device_of(const Scenario& scenario);

/// Dense peak FLOP/s for a precision (FP8 falls back to BF16 on a GPU without FP8, FP4 to FP8
/// on one without FP4).
double peak_flops_per_s(const GpuSpec& gpu, Precision precision);

/// NVFP4's bytes per element: a 4-bit E2M1 value and one E4M3 scale per 16 elements (the
/// per-tensor FP32 scale is negligible). Transformer Engine NVFP4BlockScaling; NVIDIA 2025,
/// "Pretraining Large Language Models with NVFP4" (arXiv 2509.25149) §2.
inline constexpr double kNvfp4BytesPerElement = 0.5 + 1.0 / 16.0;

/// `precision` as `gpu` can run it: FP4 falls back to FP8 on a GPU without an FP4 rate, FP8 to
/// BF16 on one without an FP8 rate. The peak, MAMF share and operand bytes all read this one.
Precision runnable_precision(const GpuSpec& gpu, Precision precision);

/// The precision the linear layers' GEMMs run in: BF16, FP8, or FP4 under the NVFP4 recipe on a
/// GPU with an FP4 rate; BF16 where the GPU has no FP8 rate.
Precision gemm_precision(const TrainingSpec& training, const GpuSpec& gpu);

/// Bytes per GEMM operand element: 2 (BF16), 1 (FP8), kNvfp4BytesPerElement (FP4).
double gemm_operand_bytes(Precision precision);

/**
 * Seconds for `batch` GEMMs of (m × k) · (k × n), each 2mnk FLOPs.
 * Compute: peak · MAMF fraction · gemm_in_step, divided by the tile and wave utilisation of
 * the best of 128×256, 256×128 and 128×128 output tiles on the GPU's SMs, split-K filling the
 * GPU when there are fewer tiles than SMs (NVIDIA, "Matrix Multiplication Background User's
 * Guide" §3.1–3.2, tile and wave quantization). Memory: operands (gemm_operand_bytes)
 * and the BF16 result cross HBM once, added to the compute time, not hidden behind it.
 * Checked against DeepGEMM's published H800 FP8 table (deepseek-ai/DeepGEMM README at 55ab91f,
 * 1125 TFLOP/s at 4096×24576×1536 and 1009 at 4096×2112×7168): at gemm_in_step 0.9867 the model
 * gives 1019 and 885, 9–12% low, because it adds the HBM pass in series where DeepGEMM streams it
 * under the math, and the deep shape takes a fifth, mostly empty wave of 128×128 tiles.
 * tests/core/time_kernels_test.cpp derives both and holds the shipped presets within 15%.
 */
double gemm_s(double m, double n, double k, const Device& device, Precision precision,
              double batch = 1.0);

/// A lower bound on gemm_s() for any GEMM of 2·m·n·k·batch FLOPs: those FLOPs at the rate
/// gemm_s() reaches with every tile and wave full, and no HBM pass.
double gemm_floor_s(double m, double n, double k, const Device& device, Precision precision,
                    double batch = 1.0);

/**
 * Forward seconds of flash attention for `queries` query tokens, each attending to `keys`
 * keys (causal: half of them on average), `heads` heads of `qk_dim`/`v_dim` dims: executed
 * FLOPs 2·queries·heads·(qk_dim + v_dim)·keys·(½ if causal) at
 *   peak_bf16 · attention_peak_fraction · attention_in_step · keys / (keys + attention_half_keys)
 *   · head-dim factor (attention_in_step: the fitted share of the kernel benchmark a training
 *   step reaches, calibration.json),
 * head-dim factor = 1.25·d/(d + 32) (1 at d = 128, 0.83 at 64, 1.11 at 256). Sources: Shah et
 * al. 2024 (FlashAttention-3) Fig. 5–7 causal curves on H100 (292 → 616 TFLOP/s from 512 to
 * 16K tokens at d = 128); Dao 2023 (FlashAttention-2) on A100.
 * The curve is BF16 on the GPU it was measured on. Per score element a kernel spends
 * a = 2·(qk_dim + v_dim) / (MMA FLOPs per clock per SM) clocks on the tensor cores (backward 2.5·a)
 * and exposes k = softmax_exp_exposed of an exponential's b = 1 / (exponentials per clock per SM):
 * time × (a/f + k·b) / (a + k·b_reference), where f is the FP8/BF16 tensor rate ratio when `fp8`
 * (training.fp8_dot_product_attention) and 1 otherwise, and b is this GPU's (Blackwell Ultra
 * doubles the SFUs' rate). k = 0.673 comes from NVIDIA's measured ~35% GB300-over-GB200 FP8
 * attention forward on DeepSeek-V3 (MLA); it then gives FP8 over BF16 on H100 at d = 128 as
 * (0.125 + 0.042) / (0.0625 + 0.042) = 1.60x, where FlashAttention-3 measured 1.2 PFLOP/s against
 * 740 TFLOP/s (1.62x; Shah et al. 2024 §4).
 */
double flash_attention_forward_s(double queries, double keys, double heads, double qk_dim,
                                 double v_dim, bool causal, const Device& device, int chunks = 1,
                                 bool fp8 = false);

/// Backward of the same: 2.5× the forward FLOPs (dQ, dK, dV plus the recomputed scores; Dao
/// 2023 §3.2) at attention_backward_ratio of the forward rate.
/// `chunks`: the keys arrive in that many kernel calls (a context-parallel ring passes cp K/V
/// chunks), each running at the rate of its keys/chunks, not of the whole sequence.
/**
 * Mamba-2's SSD scan (Dao & Gu 2024 §6-7: attention-like within chunks of `chunk` tokens, a
 * state passed between chunks): the 7·tokens·d_inner·N FLOPs Megatron-LM counts for it
 * (d98e8a64 training.py mamba_layer_flops), at the flash-attention rate of `chunk` keys and
 * head width `head_dim` (the intra-chunk part is a masked attention of chunk length).
 * Backward: 2.5x at the attention backward ratio, as flash attention.
 */
double ssd_scan_forward_s(double tokens, double heads, double head_dim, double state, double chunk,
                          const Device& device);
double ssd_scan_backward_s(double tokens, double heads, double head_dim, double state, double chunk,
                           const Device& device);

double flash_attention_backward_s(double queries, double keys, double heads, double qk_dim,
                                  double v_dim, bool causal, const Device& device, int chunks = 1,
                                  bool fp8 = false);

/// Seconds to stream `bytes` through HBM at the measured share of its bandwidth.
double stream_s(double bytes, const Device& device);

/**
 * A layer pass whose GPU work takes `gpu_s` while the host needs `host_s` to issue its
 * kernels: the host runs ahead, so the GPU idles only when the host falls behind.
 * (gpu³ + host³)^(1/3): the longer of the two, softened where they are close (vTrain's
 * single-node runs: a 1024-wide GPT layer at micro-batch 1, 2, 4, 8 takes 3.6, 4.2, 6.7,
 * 11.6 ms, a flat ~3.6 ms host floor meeting ~1.45 ms of GPU work per sequence).
 */
double with_host_s(double gpu_s, double host_s);

/// E[max of n independent standard normal samples]: 0 at n = 1, 0.5642 at 2 (1/√π), 1.4236
/// at 8, 3.2482 at 1,024, 3.9714 at 16,384 (∫ x·n·φ(x)·Φ(x)^(n−1) dx, tabulated at powers of
/// two and interpolated linearly in n between them; flat beyond 2^20).
double expected_max_of_normals(long long n);

/// How much longer than a median GPU the slowest of `gpus` takes on the same work, each GPU's
/// speed spread by `speed_spread` (relative standard deviation): speed_spread·E[max of gpus
/// standard normals]. A synchronous step (TP per layer, PP per micro-batch, DP per step) runs
/// at that pace.
double slowest_gpu_slowdown(long long gpus, double speed_spread);

}  // namespace pplan
