#pragma once
/// The three inputs of every plan (Calculon's split): the model, the system, the strategy.
/// Plain aggregates; validation happens once, in json_io.cpp.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "pplan/calibration.h"

namespace pplan {

/// Feed-forward flavour: GPT's 2-matrix GeLU MLP, or a gated 3-matrix MLP: Llama's SwiGLU or
/// Gemma's GeGLU (Shazeer 2020, "GLU Variants Improve Transformer": gate·act(up), same shapes).
/// Nemotron-H's MLP is squared ReLU (Megatron --squared-relu): two matrices, as GeLU's.
/// kClampedSwiglu: gpt-oss's gated MLP, gate·sigmoid(1.702·gate)·(up + 1) with the gate clamped
/// at 7 and up to ±7 (OpenAI's gpt-oss model card §2; modeling_gpt_oss.py GptOssExperts;
/// Megatron-LM's --quick-geglu --glu-linear-offset 1.0 --activation-func-clamp-value 7.0).
enum class Activation { kGelu, kSwiglu, kGeglu, kSquaredRelu, kClampedSwiglu };
/// Whether the MLP is gated (three matrices: gate, up, down).
inline bool gated_mlp(Activation activation) {
  return activation == Activation::kSwiglu || activation == Activation::kGeglu ||
         activation == Activation::kClampedSwiglu;
}
/// Arithmetic used for the GEMMs; selects the GPU's peak. `training.precision` is BF16 or FP8;
/// kFp4 is the GEMM precision of FP8 training under the NVFP4 recipe (gemm_precision()).
enum class Precision { kBf16, kFp8, kFp4 };
/// Activation recomputation (Korthikanti et al. 2022): none, selected modules, whole layer.
enum class Recompute { kNone, kSelective, kFull };
/// The modules selective recomputation reruns (Megatron --recompute-modules), as bits: the
/// attention core, MLA's up-projections, the norms, the MoE experts' activation function, a
/// dense MLP, a whole MoE block, the shared experts.
enum RecomputeModule : unsigned {
  kRecomputeCoreAttn = 1u << 0,
  kRecomputeMlaUpProj = 1u << 1,
  kRecomputeLayernorm = 1u << 2,
  kRecomputeMoeAct = 1u << 3,
  kRecomputeMlp = 1u << 4,
  kRecomputeMoe = 1u << 5,
  kRecomputeSharedExperts = 1u << 6,
};
/// The bit's position: its index in kRecomputeModuleNames and LayerTimes::module_forward_s.
constexpr std::size_t module_index(RecomputeModule module) {
  std::size_t i = 0;
  while (i < 31 && !(unsigned(module) & (1u << i))) ++i;
  return i;
}
/// Megatron's names for the bits, in bit order.
inline constexpr const char* kRecomputeModuleNames[] = {"core_attn", "mla_up_proj", "layernorm", "moe_act",
                                                        "mlp",       "moe",         "shared_experts"};
inline constexpr std::size_t kRecomputeModuleCount = sizeof(kRecomputeModuleNames) / sizeof(kRecomputeModuleNames[0]);
/// The training stack (framework/framework.h): it sets the defaults of every switch below.
enum class Framework { kMegatronCore, kMegatronLm, kDeepSpeed, kTorchtitan };
/// How FP8 GEMM inputs are scaled (Transformer Engine recipes): one scale per tensor from an
/// amax history (delayed), from the tensor itself (current / tensorwise), or per block
/// (blockwise 128×128 / 1×128, MXFP8 1×32 on Blackwell). NVFP4 (Transformer Engine's
/// NVFP4BlockScaling, Megatron --fp4-format e2m1 --fp4-recipe nvfp4) runs the linear layers'
/// GEMMs in 4-bit E2M1 with an E4M3 scale per 16 elements, on Blackwell.
enum class Fp8Recipe { kDelayed, kCurrent, kBlockwise, kMxfp8, kNvfp4 };
/// How MoE tokens reach their experts across EP ranks (Megatron --moe-token-dispatcher-type):
/// one all-to-all of every token copy (`alltoall`), or DeepEP's kernels (`flex`), which send a
/// token over the network once per destination node and fan its copies out over NVLink there.
enum class MoeDispatcher { kAllToAll, kFlex };
/// The pipeline schedule (parallel.schedule). 1F1B and its interleaved form (Narayanan et al.
/// 2021 §2.2); the zero-bubble schedules, which split the backward into input gradients (B) and
/// weight gradients (W) to fill the bubble: ZB-H1 and the V-shaped ZB-V (Qi et al. 2023, arXiv
/// 2401.10241); DualPipe, bidirectional, each rank holding a stage of each direction (2×
/// parameters) with one micro-batch's forward and another's backward overlapped so the
/// all-to-all and pipeline sends hide behind them, and DualPipeV, its V-shaped half (DeepSeek-AI
/// 2024 §3.2.1, Table 2; deepseek-ai/DualPipe 3da1bbe README).
enum class ScheduleKind { kOneFOneB, kInterleaved, kZbH1, kZbV, kDualPipe, kDualPipeV };
inline constexpr ScheduleKind kScheduleKinds[] = {ScheduleKind::kOneFOneB, ScheduleKind::kInterleaved,
                                                  ScheduleKind::kZbH1,     ScheduleKind::kZbV,
                                                  ScheduleKind::kDualPipe, ScheduleKind::kDualPipeV};
/// 1F1B and interleaved 1F1B: the bubble (p−1)/(v·m) of the stage time, the schedules every
/// Megatron-family framework runs and the timeline draws.
constexpr bool is_one_f_one_b(ScheduleKind s) { return s == ScheduleKind::kOneFOneB || s == ScheduleKind::kInterleaved; }
/// V-shaped schedules: each rank runs two chunks, the first and the mirrored last (vpp = 2).
constexpr bool is_v_shape(ScheduleKind s) { return s == ScheduleKind::kZbV || s == ScheduleKind::kDualPipeV; }
/// DualPipe and DualPipeV overlap one micro-batch's forward with another's backward: the MoE
/// all-to-all and the pipeline sends of each hide behind the other's computation.
constexpr bool overlaps_forward_backward(ScheduleKind s) {
  return s == ScheduleKind::kDualPipe || s == ScheduleKind::kDualPipeV;
}
/// The dtype of Adam's state: fp32 master weights and moments (12 bytes per parameter), or
/// bf16 moments with the master weights in 2 bytes beside the bf16 weights (6 bytes, or 8 where
/// the framework keeps fp32 master weights; memory.h).
enum class OptimizerStateDtype { kFp32, kBf16 };

/// Mixture-of-experts block of a model.
struct MoeSpec {
  int experts = 0;            ///< routed experts per MoE layer
  int top_k = 0;              ///< routed experts each token visits
  int shared_experts = 0;     ///< always-on experts per MoE layer
  int expert_ffn_hidden = 0;  ///< FFN width of one expert
  int dense_layers = 0;       ///< leading layers with a dense MLP instead of experts
  /// After the dense_layers, every `every`-th layer holds experts: layer i when
  /// (i + 1) % every == 0 (Hugging Face's convention: Qwen's decoder_sparse_step, Llama 4's
  /// interleave_moe_layer_step); 1 = every layer.
  int every = 1;
  /// Group-limited routing (DeepSeek-V3 §2.1.2's node-limited routing, M = 4): the experts
  /// fall in `groups` contiguous groups and a token picks its top_k among the experts of its
  /// best `group_top_k` groups (Hugging Face n_group / topk_group; Megatron
  /// --moe-router-num-groups / --moe-router-group-topk). 0: unlimited.
  int groups = 0;
  int group_top_k = 0;
};

/// Mamba-2 mixer layers of a hybrid model (Dao & Gu 2024, "Transformers are SSMs", arXiv
/// 2405.21060, §7: the SSD layer): `heads` heads of `head_dim` (d_inner = heads · head_dim),
/// `groups` groups of B and C with `state` dims each, a causal conv of `conv_kernel` taps, the
/// SSD scan in chunks of `chunk` tokens.
struct MambaSpec {
  int heads = 0;
  int head_dim = 0;
  int state = 0;
  int groups = 1;
  int conv_kernel = 4;
  int chunk = 128;
};

/// Local attention on all but every `global_every`-th layer (layer i is global when
/// (i + 1) % global_every == 0; 0: every layer local, as Mistral 7B): a sliding window of `tokens` keys (Gemma 3: 1024 with one global
/// layer in 6; gpt-oss: 128, alternating), or, when `chunked`, attention within fixed chunks of
/// `tokens` (Llama 4: 8192, one global layer in 4).
struct LocalAttentionSpec {
  int tokens = 0;
  int global_every = 1;
  bool chunked = false;
};

/// Multi-head latent attention (DeepSeek-AI 2024, DeepSeek-V2/V3 §2.1): queries and keys/values
/// pass through low-rank latents; each head has a no-RoPE part, a RoPE part and a value part.
struct MlaSpec {
  int q_lora_rank = 0;        ///< query latent width (0 = queries projected directly)
  int kv_lora_rank = 0;       ///< key/value latent width
  int qk_nope_head_dim = 0;   ///< per-head query/key dims without rotary embedding
  int qk_rope_head_dim = 0;   ///< per-head query/key dims with rotary embedding (key part shared)
  int v_head_dim = 0;         ///< per-head value dims
};

/// A transformer decoder, as the architecture tables of its paper give it.
struct ModelSpec {
  std::string id;    ///< preset id, or "custom"
  std::string name;  ///< human name
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;  ///< key/value heads (GQA); equals heads for MHA
  /// Width of one query/key/value head; 0: hidden / heads. Qwen3, Gemma 3, gpt-oss and
  /// Mistral-NeMo decouple it (heads · head_dim need not be hidden).
  int head_dim = 0;
  bool qk_norm = false;          ///< RMSNorm on each head's query and key (Qwen3, Gemma 3)
  /// Biases on every linear layer: Q, K, V, output, MLP and experts (and the router): gpt-oss;
  /// Megatron's add_bias_linear. pplan counts them only where this is set.
  bool linear_bias = false;
  bool attention_sinks = false;  ///< one learned sink logit per head (gpt-oss)
  int ffn_hidden = 0;
  int vocab = 0;
  Activation activation = Activation::kGelu;
  bool tied_embeddings = false;  ///< input embedding shared with the LM head (GPT-3)
  bool dropout = false;          ///< dropout masks kept for backward (GPT era; Llama has none)
  /// Whether the scenario gave `dropout`; if not, the framework's default decides (json_io).
  bool dropout_given = false;
  bool learned_positions = false;  ///< learned absolute position table (GPT) vs rotary (Llama)
  /// RoPE base θ of rotary models (Su et al. 2021, "RoFormer", §3.2.2: θ_i = base^(−2i/d));
  /// 10000 is RoFormer's and Megatron's default. Unused with learned positions.
  double rope_theta = 10000;
  std::optional<MoeSpec> moe;
  std::optional<MlaSpec> mla;  ///< set for MLA models; then kv_heads is unused
  std::optional<LocalAttentionSpec> local_attention;
  /// A hybrid model's layers, one character each as Megatron's --hybrid-override-pattern spells
  /// them: 'M' a Mamba-2 mixer, '*' attention, '-' an MLP (Nemotron-H). Empty: every layer is
  /// attention + MLP. With it, layers = its length and each layer holds one block and its norm.
  std::string hybrid_pattern;
  /// The pattern's counts of '*', '-' and 'M' (filled where the pattern is parsed, so pricing
  /// never rescans it; recounted when they do not add up to the pattern).
  int hybrid_attention_layers = 0, hybrid_mlp_layers = 0, hybrid_mamba_layers = 0;
  std::optional<MambaSpec> mamba;
  /// Multi-token prediction modules (DeepSeek-V3 §2.2, depth 1): each a transformer layer of the
  /// last layer's kind, two norms and a 2h x h projection, sharing the embedding and the head.
  int mtp_layers = 0;
  double nominal_params = 0;  ///< published size ("175B") used by the method's hand calculation
  std::string source;
  /// A custom model with a preset's shapes: that preset's id, and the details taken from it
  /// that the scenario left out ("head_dim 128, qk_norm true"); empty otherwise.
  std::string details_from_preset;
  std::string details_taken;
};

/// The system a GPU preset ships in (DGX H100, GB200 NVL72 ...): its cluster defaults.
struct SystemSpec {
  std::string name;
  int gpus_per_node = 0;        ///< GPUs per host (a SLURM node, a compute tray); 0 = unknown
  int nvlink_domain_gpus = 0;   ///< GPUs sharing one NVLink/NVSwitch fabric
  int nics_per_node = 0;        ///< scale-out NICs per host
  double nic_bits_per_s = 0;    ///< line rate of one NIC
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
  /// GPU <-> host memory, one direction, per GPU when every GPU copies at once (PCIe, or Grace's
  /// NVLink-C2C shared by a superchip's GPUs); 0 = not given (no activation offloading).
  double host_link_bytes_per_s = 0;
  /// Host memory per GPU (the node's DRAM over its GPUs; Grace's LPDDR5X over its two): where
  /// offloaded activations live; 0 = not given (no activation offloading).
  double host_memory_bytes = 0;
  int sm_count = 0;                ///< streaming multiprocessors (GEMM waves)
  /// Maximum achievable matmul FLOP/s over the dense peak, measured (model/kernels.h).
  double mamf_fraction_bf16 = 0;
  double mamf_fraction_fp8 = 0;
  /// Schema v1's calibration fields, kept readable: a custom GPU that gives them scales pplan's
  /// GEMM and attention models by their ratio to v1's default for its architecture (so copies
  /// of the v1 presets behave as the presets do). 1 when absent.
  double legacy_gemm_scale = 1;
  /// Attention kernel throughput relative to pplan's flash-attention model (1 = as modelled):
  /// `attention_scale`, or schema v1's `attention_efficiency` read as a ratio (above).
  double attention_scale = 1;
  /// SFU base-2 exponentials per clock per SM, softmax's transcendental (kernels.h
  /// flash_attention_forward_s); 0 = the architecture's reference GPU's.
  double softmax_exp_per_clock_per_sm = 0;
  double fp4_flops_per_s = 0;  ///< dense FP4 peak where the vendor gives one (informational)
  /// What NCCL reaches of the links, as measured (`pplan calibrate` refits them from nccl-tests
  /// output). Share of NVLink's unidirectional line rate a ring reaches: ~20% protocol
  /// overhead, ~370 of 450 GB/s on H100 (S. Jeaugey, NVIDIA/nccl-tests#212).
  double nvlink_efficiency = 0.8;
  /// Share of the NIC line rate NCCL reaches across nodes: 46–48 of 50 GB/s per NDR NIC, 192
  /// of 200 GB/s on DGX-A100 HDR (NVIDIA/nccl-tests#290, NVIDIA/nccl#812).
  double network_efficiency = 0.92;
  /// Per-step latency of a collective inside a node and across nodes: NCCL's small-message
  /// latencies are ~5–10 µs in a node and ~10–20 µs across InfiniBand (stated assumptions).
  double nvlink_latency_s = 5e-6;
  double network_latency_s = 10e-6;
  /// Host time to issue one kernel on this cluster's hosts; 0 = the calibration's
  /// (Calibration::host_kernel_s, fitted over the public runs).
  double host_kernel_s = 0;
  SystemSpec system;
  std::string source;
};

/// The cluster: how many GPUs, how many share a host and how many an NVLink domain (8 and 8 on
/// DGX H100; 4 per tray and 72 per rack on GB200 NVL72), and the scale-out network. The GPU's
/// nvlink/network bandwidths are the resolved per-GPU figures of this cluster.
struct ClusterSpec {
  GpuSpec gpu;
  int gpus = 0;
  int gpus_per_node = 0;       ///< per host: what SLURM and torchrun see
  int nvlink_domain_gpus = 0;  ///< per NVLink domain: where TP, EP and CP traffic stays on NVLink
  bool rail_optimized = true;  ///< one NIC per GPU position on its own leaf (rail)
  /// Scale-out oversubscription (1 = full bisection): traffic that leaves a node shares the
  /// fabric's uplinks this many to one.
  double oversubscription = 1.0;
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
  /// Gradient reduce-scatter/all-reduce overlapped with the backward pass.
  bool overlap_grad_reduce = false;
  /// Distributed-optimizer / FSDP parameter all-gather overlapped with the forward pass.
  bool overlap_param_gather = false;
  /// TP/SP collectives overlapped with their GEMMs (Megatron --tp-comm-overlap with TE
  /// userbuffers; torchtitan async TP).
  bool tp_comm_overlap = false;
  /// Gradients accumulated and reduced in fp32 (4 bytes per parameter) rather than bf16.
  bool grad_reduce_in_fp32 = true;
  /// Kernels replayed from CUDA graphs: the host no longer launches each one.
  bool cuda_graphs = false;
  Fp8Recipe fp8_recipe = Fp8Recipe::kDelayed;
  MoeDispatcher moe_dispatcher = MoeDispatcher::kAllToAll;
  /// The EP all-to-alls of one micro-batch overlapped with another's computation (Megatron
  /// --overlap-moe-expert-parallel-comm, its combined 1F1B schedule; DeepSeek-V3 §3.2.1).
  bool overlap_moe_expert_parallel_comm = false;
  /// SwiGLU's input kept in FP8 for its backward, half the bytes (Megatron-Core's
  /// TransformerConfig.activation_func_fp8_input_store, transformer_config.py:227, set by NeMo's
  /// recipes; DeepSeek-AI 2024 §3.3.3 caches the SwiGLU input in FP8).
  bool activation_func_fp8_input_store = false;
  /// Attention's two batched matmuls in FP8 (Transformer Engine's fp8_dpa; Megatron-Core
  /// TransformerConfig.fp8_dot_product_attention, transformer_config.py:640, no command-line flag;
  /// Megatron-Bridge's 2026 MoE recipes set it): the tensor-core part of the kernel at the FP8
  /// rate, the softmax's exponentials as before (model/kernels.h flash_attention_forward_s).
  bool fp8_dot_product_attention = false;
  /// FP8 parameters (Megatron --fp8-param-gather, Transformer Engine FP8 weight tensors): a
  /// layer's weight is kept only in FP8 (one byte and its transpose, no BF16 copy beside them)
  /// and the data-parallel all-gather moves one byte per parameter. Megatron-Bridge's FP8
  /// recipes set it (mixed_precision.py at 067f987df); torchtitan b5bcd76c has no such switch.
  /// As given; when not, the framework decides per plan (framework.h keeps_fp8_params).
  bool fp8_param_gather = false;
  bool fp8_param_gather_given = false;
  OptimizerStateDtype optimizer_state_dtype = OptimizerStateDtype::kFp32;
  Framework framework = Framework::kMegatronCore;
  /// Share of HBM kept free for allocator fragmentation and spikes: the search accepts plans up
  /// to (1 − memory_headroom) of the GPU's memory, and a pinned plan above it is flagged.
  double memory_headroom = 0.10;
  double token_budget = 0;      ///< tokens to train for; 0 = not given
};

/// A complete parallel strategy: the thing pplan evaluates and searches.
struct ParallelConfig {
  int tp = 1;
  int pp = 1;
  int dp = 1;
  int cp = 1;
  int ep = 1;
  /// Expert tensor parallelism: each routed expert's matrices split over `etp` GPUs; 0 = tp,
  /// Megatron's default (MoE parallel folding, Liu et al. 2025, arXiv 2504.14960: the expert
  /// part of a stage is etp × ep × expert-DP over the same tp·cp·dp GPUs; expert_tp()).
  int etp = 0;
  int vpp = 1;  ///< virtual pipeline stages per rank (interleaved 1F1B when > 1; 2 for V shapes)
  /// The pipeline schedule; vpp agrees with it (schedule_vpp_ok()).
  ScheduleKind schedule = ScheduleKind::kOneFOneB;
  int micro_batch = 1;
  bool sequence_parallel = false;
  Recompute recompute = Recompute::kNone;
  /// With full recompute: layers recomputed in each model chunk, the rest keep their
  /// activations (Megatron --recompute-method block --recompute-num-layers N); 0 = every layer.
  int recompute_layers = 0;
  /// With selective recomputation: the modules rerun (RecomputeModule bits); 0 = pplan's default,
  /// the attention core and, on an MLA model, its up-projections (recompute_modules()).
  unsigned recompute_modules = 0;
  int zero = 0;  ///< 0 plain DP, 1 optimizer sharded, 2 + gradients, 3 + weights (FSDP)
  /// Uneven pipeline split: layers on the first/last stage; 0 = chosen automatically.
  int first_stage_layers = 0;
  int last_stage_layers = 0;
  /// Layers whose activations are copied to host memory after their forward and back before
  /// their backward (Megatron --cpu-offloading-num-layers: the first N; one stage, no
  /// recomputation); 0 = none.
  int offload_layers = 0;
};

/// The expert tensor-parallel size in effect: etp, or tp when it is not set.
inline int expert_tp(const ParallelConfig& p) { return p.etp > 0 ? p.etp : p.tp; }

/// The modules a plan's selective recomputation reruns: its own, or the default (the attention
/// core, and MLA's up-projections where the model has MLA); 0 unless recompute is selective.
inline unsigned recompute_modules(const ParallelConfig& p, bool mla) {
  if (p.recompute != Recompute::kSelective) return 0;
  if (p.recompute_modules != 0) return p.recompute_modules;
  return kRecomputeCoreAttn | (mla ? kRecomputeMlaUpProj : 0u);
}

/// Whether the expert grid etp × ep tiles a stage's tp·cp·dp GPUs (Megatron-Core
/// parallel_state: the world must divide by etp·ep·pp).
inline bool expert_grid_tiles(const ParallelConfig& p) {
  return (1LL * p.tp * p.cp * p.dp) % (1LL * expert_tp(p) * p.ep) == 0;
}

/// Whether each expert's width splits over `etp` GPUs (Transformer Engine's grouped linear
/// divides it: Megatron-LM d98e8a64 extensions/transformer_engine.py).
inline bool expert_width_splits(const MoeSpec& moe, int etp) { return moe.expert_ffn_hidden % etp == 0; }

/// Expert TP where the scenario leaves it out, as ParallelConfig::etp (0 = tp): tp, Megatron's
/// default, unless the expert grid (etp × ep over tp·cp·dp) or the expert width cannot take tp
/// while they can take 1. Such a layout runs only with expert TP 1, so whoever ran it set that
/// (NVIDIA's Qwen3-235B-A22B on 256 H100: TP 2 × EP 32 over 2 · 16 GPUs per stage). 0 for a
/// dense model.
inline int default_expert_tp(const ParallelConfig& p, const std::optional<MoeSpec>& moe) {
  if (!moe || moe->experts <= 0) return 0;
  ParallelConfig with_tp = p;
  with_tp.etp = 0;
  ParallelConfig with_one = p;
  with_one.etp = 1;
  const bool tp_runs = expert_grid_tiles(with_tp) && expert_width_splits(*moe, p.tp);
  return tp_runs || !expert_grid_tiles(with_one) ? 0 : 1;
}

/// Expert data parallelism: the copies of each expert in one stage, tp·cp·dp / (etp·ep)
/// (Megatron-Core parallel_state: expert_data_parallel_size); at least 1.
inline long long expert_dp(const ParallelConfig& p) {
  const long long grid = 1LL * expert_tp(p) * (p.ep > 0 ? p.ep : 1);
  const long long stage = 1LL * p.tp * p.cp * p.dp;
  return stage >= grid ? stage / grid : 1;
}

/**
 * The code of the rule `m` micro-batches per step break for `schedule` on `pp` ranks, or nullptr:
 * Megatron's interleaving needs m >= pp and m % pp == 0 (plan.vpp_microbatches,
 * schedules.py:1173); DualPipe an even m >= 2·pp (deepseek-ai/DualPipe 3da1bbe dualpipe.py:333),
 * DualPipeV m >= 2·pp (dualpipev.py:318) (plan.schedule_microbatches). Example: interleaved,
 * pp 8, m 12 -> plan.vpp_microbatches.
 */
inline const char* schedule_microbatch_problem(ScheduleKind schedule, int pp, long long m) {
  if (pp <= 1) return nullptr;
  if (schedule == ScheduleKind::kInterleaved) return m >= pp && m % pp == 0 ? nullptr : "plan.vpp_microbatches";
  if (schedule == ScheduleKind::kDualPipe && (m < 2LL * pp || m % 2 != 0)) return "plan.schedule_microbatches";
  if (schedule == ScheduleKind::kDualPipeV && m < 2LL * pp) return "plan.schedule_microbatches";
  return nullptr;
}

/// The parts of a strategy the user pinned; everything unset is searched.
struct ParallelConstraints {
  std::optional<int> tp, pp, dp, cp, ep, etp, vpp, micro_batch, zero;
  std::optional<int> first_stage_layers, last_stage_layers, recompute_layers, offload_layers;
  std::optional<unsigned> recompute_modules;
  std::optional<bool> sequence_parallel;
  std::optional<Recompute> recompute;
  std::optional<ScheduleKind> schedule;
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
  Calibration calibration;  ///< the time model's constants (presets/calibration)
};

/// The names the scenario format spells these values with (spec/contract.md).
/// "none" | "selective" | "full".
const char* recompute_name(Recompute recompute);
/// Megatron's names of the RecomputeModule bits set in `modules`, in bit order.
std::vector<const char*> recompute_module_names(unsigned modules);
/// "gelu" | "swiglu".
const char* activation_name(Activation activation);
/// "bf16" | "fp8".
const char* precision_name(Precision precision);
/// "delayed", "current", "blockwise", "mxfp8", "nvfp4": the scenario's training.fp8_recipe values.
const char* fp8_recipe_name(Fp8Recipe recipe);
/// Whether the plan's passes run as overlapped F&B pairs that hide the MoE all-to-all and the
/// pipeline sends: DualPipe (DeepSeek's own framework) and DualPipeV, except under torchtitan,
/// whose DualPipeV runs each pair's F and B one after the other since its EP overlap was removed
/// (pytorch/torchtitan 75771f50, "remove dual_pipe_v.py"; torch's ScheduleDualPipeV runs
/// OVERLAP_F_B sequentially unless a custom function is registered).
inline bool overlaps_f_and_b(const TrainingSpec& training, const ParallelConfig& parallel) {
  return overlaps_forward_backward(parallel.schedule) &&
         !(parallel.schedule == ScheduleKind::kDualPipeV && training.framework == Framework::kTorchtitan);
}
/// Whether an MoE layer's EP all-to-all hides behind another micro-batch's computation: DualPipe's
/// overlapped F&B pairs (overlaps_f_and_b) or Megatron's combined 1F1B
/// (--overlap-moe-expert-parallel-comm).
inline bool hides_expert_all_to_all(const TrainingSpec& training, const ParallelConfig& parallel, bool moe) {
  return moe && parallel.ep > 1 && (training.overlap_moe_expert_parallel_comm || overlaps_f_and_b(training, parallel));
}
/// Its name in the output: "dualpipe", "combined-1f1b", or "none" (priced in full).
inline const char* expert_all_to_all_overlap(const TrainingSpec& training, const ParallelConfig& parallel, bool moe) {
  if (!hides_expert_all_to_all(training, parallel, moe)) return "none";
  return overlaps_f_and_b(training, parallel) ? "dualpipe" : "combined-1f1b";
}
/// "1f1b" | "interleaved" | "zb-h1" | "zb-v" | "dualpipe" | "dualpipev".
const char* schedule_name(ScheduleKind schedule);
/// The schedule a plan runs when none is named: interleaved 1F1B with virtual stages, else 1F1B.
inline ScheduleKind default_schedule(int vpp) { return vpp > 1 ? ScheduleKind::kInterleaved : ScheduleKind::kOneFOneB; }
/// Whether `vpp` is what `schedule` runs: 1F1B and DualPipe one chunk per rank, interleaved
/// more than one, the V shapes two; ZB-H1 any (torch's InterleavedZeroBubble with v chunks).
inline bool schedule_vpp_ok(ScheduleKind schedule, int vpp) {
  switch (schedule) {
    case ScheduleKind::kOneFOneB:
    case ScheduleKind::kDualPipe: return vpp == 1;
    case ScheduleKind::kInterleaved: return vpp > 1;
    case ScheduleKind::kZbV:
    case ScheduleKind::kDualPipeV: return vpp == 2;
    case ScheduleKind::kZbH1: return vpp >= 1;
  }
  return false;
}

}  // namespace pplan
