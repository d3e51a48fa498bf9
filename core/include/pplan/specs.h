#pragma once
/// The three inputs of every plan (Calculon's split): the model, the system, the strategy.
/// Plain aggregates; validation happens once, in json_io.cpp.

#include <optional>
#include <string>

namespace pplan {

/// Feed-forward flavour: GPT's 2-matrix GeLU MLP or Llama's 3-matrix SwiGLU MLP.
enum class Activation { kGelu, kSwiglu };
/// Arithmetic used for the GEMMs; selects the GPU's peak.
enum class Precision { kBf16, kFp8 };
/// Activation recomputation (Korthikanti et al. 2022): none, attention core only, whole layer.
enum class Recompute { kNone, kSelective, kFull };

/// Mixture-of-experts block of a model.
struct MoeSpec {
  int experts = 0;            ///< routed experts per MoE layer
  int top_k = 0;              ///< routed experts each token visits
  int shared_experts = 0;     ///< always-on experts per MoE layer
  int expert_ffn_hidden = 0;  ///< FFN width of one expert
  int dense_layers = 0;       ///< leading layers with a dense MLP instead of experts
};

/// A transformer decoder, as the architecture tables of its paper give it.
struct ModelSpec {
  std::string id;    ///< preset id, or "custom"
  std::string name;  ///< human name
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;  ///< key/value heads (GQA); equals heads for MHA
  int ffn_hidden = 0;
  int vocab = 0;
  Activation activation = Activation::kGelu;
  bool tied_embeddings = false;  ///< input embedding shared with the LM head (GPT-3)
  bool dropout = false;          ///< dropout masks kept for backward (GPT era; Llama has none)
  bool learned_positions = false;  ///< learned absolute position table (GPT) vs rotary (Llama)
  /// RoPE base θ of rotary models (Su et al. 2021, "RoFormer", §3.2.2: θ_i = base^(−2i/d));
  /// 10000 is RoFormer's and Megatron's default. Unused with learned positions.
  double rope_theta = 10000;
  std::optional<MoeSpec> moe;
  double nominal_params = 0;  ///< published size ("175B") used by the method's hand calculation
  std::string source;
};

/// One GPU model and its links. Bandwidths are per GPU, each direction.
struct GpuSpec {
  std::string id;
  std::string name;
  std::string architecture;  ///< "ampere" | "hopper" | "blackwell" (launch rules depend on it)
  double memory_bytes = 0;           ///< physical HBM (80 GiB for the "80GB" A100/H100)
  double marketed_memory_bytes = 0;  ///< the size it is sold as ("80 GB"), for the hand calc
  double bf16_flops_per_s = 0;  ///< dense peak
  double fp8_flops_per_s = 0;   ///< dense peak; 0 when the GPU has no FP8 tensor cores
  double hbm_bytes_per_s = 0;
  double nvlink_bytes_per_s = 0;   ///< scale-up link, one direction
  double network_bytes_per_s = 0;  ///< scale-out NIC per GPU, one direction
  /// Calibration, from first principles per GPU generation (see presets/gpus/*.json).
  double gemm_efficiency = 0;       ///< share of peak a large, well-shaped GEMM reaches
  double attention_efficiency = 0;  ///< share of peak a flash-attention kernel reaches
  std::string source;
};

/// The cluster: how many GPUs, and how many share one NVLink domain (a node).
struct ClusterSpec {
  GpuSpec gpu;
  int gpus = 0;
  int gpus_per_node = 0;
};

/// What one optimizer step trains on.
struct TrainingSpec {
  int seq_len = 0;
  int global_batch = 0;  ///< sequences per optimizer step
  Precision precision = Precision::kBf16;
  /// Attention scores never materialised (FlashAttention). Default: on for Hopper and newer;
  /// off on Ampere, where the published runs this model is validated against used Megatron's
  /// fused softmax (Narayanan et al. 2021, Korthikanti et al. 2022).
  bool flash_attention = true;
  /// Gradient reduce-scatter/all-reduce overlapped with the last backward (Megatron
  /// --overlap-grad-reduce, off by default in Megatron-LM, so off here).
  bool overlap_grad_reduce = false;
  double token_budget = 0;      ///< tokens to train for; 0 = not given
};

/// A complete parallel strategy: the thing pplan evaluates and searches.
struct ParallelConfig {
  int tp = 1;
  int pp = 1;
  int dp = 1;
  int cp = 1;
  int ep = 1;
  int vpp = 1;  ///< virtual pipeline stages per rank (interleaved 1F1B when > 1)
  int micro_batch = 1;
  bool sequence_parallel = false;
  Recompute recompute = Recompute::kNone;
  int zero = 0;  ///< 0 plain DP, 1 optimizer sharded, 2 + gradients, 3 + weights (FSDP)
  /// Uneven pipeline split: layers on the first/last stage; 0 = chosen automatically.
  int first_stage_layers = 0;
  int last_stage_layers = 0;
};

/// The parts of a strategy the user pinned; everything unset is searched.
struct ParallelConstraints {
  std::optional<int> tp, pp, dp, cp, ep, vpp, micro_batch, zero;
  std::optional<int> first_stage_layers, last_stage_layers;
  std::optional<bool> sequence_parallel;
  std::optional<Recompute> recompute;
};

/// Optional inputs of the design report (issue: trillion-parameter design report).
struct ReportSpec {
  double storage_bytes_per_s = 0;        ///< checkpoint write bandwidth; 0 = default
  double failures_per_gpu_hour = 0;      ///< 0 = default (Llama 3's record)
  /// Detect-replace-relaunch time per failure, before the checkpoint is read back;
  /// unset = kRestartOverheadS (design_report.h).
  std::optional<double> restart_overhead_s;
};

/// A scenario file, parsed: the product's one input.
struct Scenario {
  ModelSpec model;
  ClusterSpec cluster;
  TrainingSpec training;
  ParallelConstraints parallel;
  bool has_parallel = false;  ///< the file had a `parallel` object
  ReportSpec report;
};

}  // namespace pplan
