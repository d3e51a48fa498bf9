#include "pplan/model/kernels.h"

#include <cstdint>
#include <cstring>

#include <algorithm>
#include <cmath>

namespace pplan {

namespace {

/// Output tiles a GEMM library picks from (rows × columns, and the share of the large tiles'
/// rate each reaches): cuBLAS and CUTLASS run 128×256 and 256×128 tiles for large training
/// GEMMs on Ampere, Hopper and Blackwell, and fall back to 128×128 where that wastes fewer SMs
/// (its smaller operand reuse costs some throughput; 0.92 is an assumption, stated).
struct Tile {
  double rows, cols, rate;
};
constexpr Tile kTiles[] = {{128.0, 256.0, 1.0}, {256.0, 128.0, 1.0}, {128.0, 128.0, 0.92}};
constexpr bool tile_rates_at_most_one() {
  for (const Tile& tile : kTiles) {
    if (tile.rate > 1.0) return false;
  }
  return true;
}
static_assert(tile_rates_at_most_one(), "gemm_floor_s (the search's exact floors) assumes no tile beats the full-tile rate");
/// Split-K keeps each slice at least this deep, so that it still streams its operands.
constexpr double kMinSplitDepth = 512.0;

/// Share of the GPU's math a (m × n) output keeps busy with (tile_m × tile_n) tiles.
double tile_utilisation(double m, double n, double k, double tile_m, double tile_n, double batch,
                        int sms) {
  const double tiles_m = std::ceil(m / tile_m);
  const double tiles_n = std::ceil(n / tile_n);
  const double tile_share = (m * n) / (tiles_m * tile_m * tiles_n * tile_n);
  double tiles = tiles_m * tiles_n * batch;
  if (tiles < sms) {
    // Split-K: slice the reduction so that every SM gets work.
    const double split = std::max(1.0, std::min(std::floor(sms / tiles), std::floor(k / kMinSplitDepth)));
    tiles *= split;
  }
  const double waves = std::ceil(tiles / sms);
  return tile_share * tiles / (waves * sms);
}

/// (1 + r³)^(1/3) for r in [0, 1]: only +, ·, / so the wasm engine and the CLI agree to the last
/// bit (std::cbrt and std::pow are not correctly rounded everywhere). Two Halley steps (cubic
/// convergence, from 6% at worst to 1e-12) and a Newton step to the last bit: within 2e-16 of
/// the cube root on [0, 1], with three divisions (the search calls this for every plan it times).
double cube_root_one_plus_cube(double r) {
  const double target = 1.0 + r * r * r;
  double y = 1.0 + r * r * r / 3.0;
  for (int i = 0; i < 2; ++i) {
    const double y3 = y * y * y;
    y *= (y3 + 2.0 * target) / (2.0 * y3 + target);
  }
  return y - (y * y * y - target) / (3.0 * y * y);
}

}  // namespace

int Device::sm_count() const { return gpu.sm_count > 0 ? gpu.sm_count : arch.sm_count; }

double Device::mamf_fraction(Precision precision) const {
  // FP4 GEMMs take the FP8 fraction: no maximum-achievable FP4 matmul rate is published (a
  // stated assumption; the peak ratio, FP4 / FP8, carries the speed-up).
  if (runnable_precision(gpu, precision) != Precision::kBf16) {
    return gpu.mamf_fraction_fp8 > 0 ? gpu.mamf_fraction_fp8 : arch.mamf_fraction_fp8;
  }
  return gpu.mamf_fraction_bf16 > 0 ? gpu.mamf_fraction_bf16 : arch.mamf_fraction_bf16;
}

Device device_of(const Scenario& scenario) {
  const GpuSpec& gpu = scenario.cluster.gpu;
  return Device{gpu, scenario.calibration,
                architecture_calibration(scenario.calibration, gpu.architecture.c_str())};
}

Precision runnable_precision(const GpuSpec& gpu, Precision precision) {
  if (precision == Precision::kFp4 && gpu.fp4_flops_per_s <= 0) precision = Precision::kFp8;
  if (precision == Precision::kFp8 && gpu.fp8_flops_per_s <= 0) precision = Precision::kBf16;
  return precision;
}

Precision gemm_precision(const TrainingSpec& training, const GpuSpec& gpu) {
  if (training.precision != Precision::kFp8) return Precision::kBf16;
  return runnable_precision(gpu, training.fp8_recipe == Fp8Recipe::kNvfp4 ? Precision::kFp4 : Precision::kFp8);
}

double gemm_operand_bytes(Precision precision) {
  switch (precision) {
    case Precision::kFp8: return 1.0;
    case Precision::kFp4: return kNvfp4BytesPerElement;
    case Precision::kBf16: break;
  }
  return 2.0;
}

double peak_flops_per_s(const GpuSpec& gpu, Precision precision) {
  switch (runnable_precision(gpu, precision)) {
    case Precision::kFp4: return gpu.fp4_flops_per_s;
    case Precision::kFp8: return gpu.fp8_flops_per_s;
    case Precision::kBf16: break;
  }
  return gpu.bf16_flops_per_s;
}

GemmMemo::Slot GemmMemo::key_of(const Shape& shape) {
  // A shape's values are positive (gemm_s() returns before a zero one), so signs and m = 0 are
  // free to mean the precision (batch < 0: FP8; k < 0 too: FP4) and empty.
  const bool low = shape.precision != Precision::kBf16;
  return {shape.m, shape.n, shape.precision == Precision::kFp4 ? -shape.k : shape.k, low ? -shape.batch : shape.batch,
          0.0};
}

std::size_t GemmMemo::home(const Slot& key) const {
  // Each value's bits times its own odd constant, summed, the high bits folded down: the four
  // products are independent, so they run side by side.
  std::uint64_t bits[4];
  std::memcpy(&bits[0], &key.m, 8);
  std::memcpy(&bits[1], &key.n, 8);
  std::memcpy(&bits[2], &key.k, 8);
  std::memcpy(&bits[3], &key.signed_batch, 8);
  std::uint64_t h = bits[0] * 0x9E3779B97F4A7C15ULL + bits[1] * 0xC2B2AE3D27D4EB4FULL +
                    bits[2] * 0x165667B19E3779F9ULL + bits[3] * 0xD6E8FEB86659FD93ULL;
  h ^= h >> 32;
  h *= 0x9E3779B97F4A7C15ULL;
  h ^= h >> 29;
  return static_cast<std::size_t>(h) & (slots_.size() - 1);
}

bool GemmMemo::same_key(const Slot& a, const Slot& b) {
  return a.m == b.m && a.n == b.n && a.k == b.k && a.signed_batch == b.signed_batch;
}

const double* GemmMemo::find(const Shape& shape) const {
  if (slots_.empty()) return nullptr;
  const Slot key = key_of(shape);
  for (std::size_t i = home(key);; i = (i + 1) & (slots_.size() - 1)) {
    const Slot& slot = slots_[i];
    if (slot.m == 0) return nullptr;
    if (same_key(slot, key)) return &slot.seconds;
  }
}

void GemmMemo::store(const Shape& shape, double seconds) {
  // At most half full, so every probe ends at an empty slot soon.
  if (2 * (used_ + 1) > slots_.size()) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 1024 : 2 * old.size(), Slot{});
    used_ = 0;
    for (const Slot& slot : old) {
      if (slot.m != 0) {
        slots_[free_slot(slot)] = slot;
        ++used_;
      }
    }
  }
  Slot key = key_of(shape);
  const std::size_t i = free_slot(key);
  if (slots_[i].m != 0) return;  // already there
  key.seconds = seconds;
  slots_[i] = key;
  ++used_;
}

std::size_t GemmMemo::free_slot(const Slot& key) const {
  std::size_t i = home(key);
  while (slots_[i].m != 0 && !same_key(slots_[i], key)) i = (i + 1) & (slots_.size() - 1);
  return i;
}

/// The GEMM rate with every tile and wave full (FLOP/s).
static double gemm_full_tiles_rate(const Device& device, Precision precision) {
  // Never above the peak: a schema-v1 gemm_efficiency above v1's default scales the rate up
  // (legacy_gemm_scale > 1), and past the peak it priced MFU above 100% (a fuzz finding).
  const double peak = peak_flops_per_s(device.gpu, precision);
  return std::min(peak, peak * device.mamf_fraction(precision) * device.arch.gemm_in_step *
                            device.gpu.legacy_gemm_scale);
}

static double gemm_unmemoised_s(double m, double n, double k, const Device& device, Precision precision,
                                double batch) {
  const double rate = gemm_full_tiles_rate(device, precision);
  const int sms = device.sm_count();
  double utilisation = 0;
  for (const Tile& tile : kTiles) {
    utilisation = std::max(utilisation, tile.rate * tile_utilisation(m, n, k, tile.rows, tile.cols, batch, sms));
  }
  const double compute_s = 2.0 * m * n * k * batch / (rate * utilisation);
  const double operand_bytes = gemm_operand_bytes(runnable_precision(device.gpu, precision));
  const double bytes = batch * (operand_bytes * (m * k + k * n) + 2.0 * m * n);
  return compute_s + bytes / device.gpu.hbm_bytes_per_s;
}

double gemm_floor_s(double m, double n, double k, const Device& device, Precision precision,
                    double batch) {
  // Every tile rate is at most 1 and tile_utilisation() at most 1 (its shares are fractions).
  if (m <= 0 || n <= 0 || k <= 0 || batch <= 0) return 0.0;
  return 2.0 * m * n * k * batch / gemm_full_tiles_rate(device, precision);
}

double gemm_s(double m, double n, double k, const Device& device, Precision precision,
              double batch) {
  if (m <= 0 || n <= 0 || k <= 0 || batch <= 0) return 0.0;
  if (!device.gemm_memo) return gemm_unmemoised_s(m, n, k, device, precision, batch);
  const GemmMemo::Shape shape{m, n, k, batch, precision};
  if (const double* seconds = device.gemm_memo->find(shape)) return *seconds;
  const double seconds = gemm_unmemoised_s(m, n, k, device, precision, batch);
  device.gemm_memo->store(shape, seconds);
  return seconds;
}

static double flash_rate(double keys, double qk_dim, const Device& device) {
  const ArchitectureCalibration& a = device.arch;
  const double head_dim_factor = 1.25 * qk_dim / (qk_dim + 32.0);
  return std::min(device.gpu.bf16_flops_per_s,  // never above the peak (see gemm_unmemoised_s)
                  device.gpu.bf16_flops_per_s * a.attention_peak_fraction * a.attention_in_step *
                      device.gpu.attention_scale * keys / (keys + a.attention_half_keys) *
                      head_dim_factor);
}

/// Attention time over the time the architecture's measured (BF16) curve gives, which holds
/// the reference GPU's softmax cost. Per score element a kernel spends a = MMA FLOPs / (MMA FLOPs
/// per clock per SM) on the tensor cores and exposes softmax_exp_exposed of one exponential's
/// b = 1 / (exponentials per clock per SM) (the forward computes it, the backward recomputes it
/// once): time ∝ a + k·b. FP8 attention runs a at the GPU's FP8/BF16 rate ratio; faster SFUs
/// shrink b. 1 for BF16 on the reference GPU's SFUs.
static double attention_clock_factor(double mma_flops_per_score, bool fp8, const Device& device) {
  const double reference = device.arch.softmax_exp_per_clock_per_sm;
  const double rate = device.gpu.softmax_exp_per_clock_per_sm > 0 ? device.gpu.softmax_exp_per_clock_per_sm : reference;
  const double fp8_speedup = fp8 && device.gpu.fp8_flops_per_s > 0 ? device.gpu.fp8_flops_per_s / device.gpu.bf16_flops_per_s : 1.0;
  if ((rate == reference && fp8_speedup == 1.0) || reference <= 0) return 1.0;
  const double mma_clocks = mma_flops_per_score / device.arch.mma_bf16_flops_per_clock_per_sm;
  const double k = device.calibration.softmax_exp_exposed;
  return (mma_clocks / fp8_speedup + k / rate) / (mma_clocks + k / reference);
}

/// Forward seconds at the architecture's measured curve, before the SFU factor.
static double flash_forward_curve_s(double queries, double keys, double heads, double qk_dim, double v_dim,
                                    bool causal, const Device& device, int chunks) {
  if (queries <= 0 || keys <= 0 || heads <= 0) return 0.0;
  const double executed = 2.0 * queries * heads * (qk_dim + v_dim) * keys * (causal ? 0.5 : 1.0);
  return executed / flash_rate(keys / std::max(1, chunks), qk_dim, device);
}

double flash_attention_forward_s(double queries, double keys, double heads, double qk_dim,
                                 double v_dim, bool causal, const Device& device, int chunks, bool fp8) {
  return flash_forward_curve_s(queries, keys, heads, qk_dim, v_dim, causal, device, chunks) *
         attention_clock_factor(2.0 * (qk_dim + v_dim), fp8, device);
}

double ssd_scan_forward_s(double tokens, double heads, double head_dim, double state, double chunk,
                          const Device& device) {
  if (tokens <= 0 || heads <= 0) return 0.0;
  return 7.0 * tokens * heads * head_dim * state / flash_rate(chunk, head_dim, device);
}

double ssd_scan_backward_s(double tokens, double heads, double head_dim, double state, double chunk,
                           const Device& device) {
  return 2.5 * ssd_scan_forward_s(tokens, heads, head_dim, state, chunk, device) /
         device.arch.attention_backward_ratio;
}

double flash_attention_backward_s(double queries, double keys, double heads, double qk_dim,
                                  double v_dim, bool causal, const Device& device, int chunks, bool fp8) {
  return 2.5 * flash_forward_curve_s(queries, keys, heads, qk_dim, v_dim, causal, device, chunks) /
         device.arch.attention_backward_ratio * attention_clock_factor(2.5 * 2.0 * (qk_dim + v_dim), fp8, device);
}

double stream_s(double bytes, const Device& device) {
  return bytes / (device.gpu.hbm_bytes_per_s * device.calibration.hbm_efficiency);
}

double expected_max_of_normals(long long n) {
  // E[max] of 2^k samples, k = 0..20, by numerical integration (Simpson, step 1.2e-4 over
  // [-12, 12]); Tippett (1925) and Harter (1961) tabulate the same values.
  static constexpr double kAtPowerOfTwo[] = {0.0,    0.5642, 1.0294, 1.4236, 1.7660, 2.0697, 2.3437,
                                             2.5946, 2.8269, 3.0439, 3.2482, 3.4418, 3.6261, 3.8023,
                                             3.9714, 4.1341, 4.2911, 4.4430, 4.5903, 4.7332, 4.8723};
  constexpr int kLast = static_cast<int>(sizeof(kAtPowerOfTwo) / sizeof(kAtPowerOfTwo[0])) - 1;
  if (n <= 1) return 0.0;
  int k = 0;
  while (k < kLast && (2LL << k) <= n) ++k;  // 2^k <= n < 2^(k+1), or k = kLast
  if (k == kLast) return kAtPowerOfTwo[kLast];
  const double low = double(1LL << k);
  const double fraction = (double(n) - low) / low;  // the next power of two is 2·low
  return kAtPowerOfTwo[k] + fraction * (kAtPowerOfTwo[k + 1] - kAtPowerOfTwo[k]);
}

double slowest_gpu_slowdown(long long gpus, double speed_spread) {
  return speed_spread > 0 ? speed_spread * expected_max_of_normals(gpus) : 0.0;
}

double with_host_s(double gpu_s, double host_s) {
  const double longer = std::max(gpu_s, host_s);
  if (longer <= 0) return 0.0;
  return longer * cube_root_one_plus_cube(std::min(gpu_s, host_s) / longer);
}

}  // namespace pplan
