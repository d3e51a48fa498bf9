// Every rule of the form "framework F cannot run this parallel configuration as pplan prices
// it", each with the framework file and commit it comes from. One rule runner serves both
// framework_problems() (with messages) and first_framework_problem() (the first code only, no
// allocation), so the two cannot disagree; the launch generators refuse what the runner finds.
#include "pplan/framework/rules.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <string_view>

#include "pplan/framework/plan_facts.h"
#include "pplan/text.h"
#include "pplan/framework/framework.h"

namespace pplan {

namespace detail {

LaunchFacts launch_facts(const Scenario& scenario, const ParallelConfig& p) {
  LaunchFacts f;
  f.parallel = p;
  f.world_size = 1LL * p.tp * p.pp * p.dp * p.cp;
  f.gpus_per_node = std::max(1, scenario.cluster.gpus_per_node);
  f.nproc_per_node = static_cast<int>(std::min<long long>(f.world_size, f.gpus_per_node));
  f.nodes = std::max(1LL, f.world_size / std::max(1, f.nproc_per_node));
  f.nvlink_domain_gpus = std::max(f.gpus_per_node, scenario.cluster.nvlink_domain_gpus);
  f.rail_optimized = scenario.cluster.rail_optimized;
  f.nodes_per_domain = std::max(1, f.nvlink_domain_gpus / f.gpus_per_node);
  f.mnnvl = f.nodes_per_domain > 1 && f.nodes > 1;
  f.global_batch = scenario.training.global_batch;
  const long long per_step = 1LL * p.micro_batch * p.dp;
  f.microbatches = per_step > 0 ? f.global_batch / per_step : 0;
  f.seq_len = scenario.training.seq_len;
  f.tokens_per_step = 1LL * f.global_batch * f.seq_len;
  f.expert_dp = static_cast<int>(expert_dp(p));
  if (scenario.training.token_budget > 0 && f.tokens_per_step > 0) {
    const double steps = scenario.training.token_budget / double(f.tokens_per_step);
    f.train_iters = static_cast<long long>(steps);
    if (double(f.train_iters) < steps) ++f.train_iters;
  }
  f.data_parallel = 1LL * p.dp * p.cp > 1;
  f.megatron_fsdp = p.zero >= 2;
  f.fp8 = scenario.training.precision == Precision::kFp8;
  f.moe = scenario.model.moe.has_value() && scenario.model.moe->experts > 0;
  const std::string_view architecture = scenario.cluster.gpu.architecture;  // no strlen per plan
  f.ampere = architecture == "ampere";
  f.blackwell = architecture == "blackwell";
  // The switches as priced: the same questions compute.cpp and estimate.cpp ask.
  const TrainingSpec& t = scenario.training;
  f.sequence_parallel = p.sequence_parallel && p.tp > 1;
  f.tp_overlap = f.sequence_parallel && t.tp_comm_overlap;
  f.grad_overlap = f.data_parallel && overlaps_grad_reduce(t, p.zero);
  f.param_overlap = f.data_parallel && p.zero >= 1 && overlaps_param_gather(t, p.zero);
  f.grad_fp32 = t.grad_reduce_in_fp32;
  f.bf16_optimizer_state = t.optimizer_state_dtype == OptimizerStateDtype::kBf16;
  f.cuda_graphs = t.cuda_graphs;
  f.activation_fp8_store = t.activation_func_fp8_input_store;
  f.fp8_params = f.fp8 && keeps_fp8_params(t, f.parallel.zero);
  f.fp8_attention = f.fp8 && t.fp8_dot_product_attention;
  f.flash_attention = t.flash_attention;
  f.fp8_recipe = t.fp8_recipe;
  f.recompute_layers = p.recompute == Recompute::kFull ? p.recompute_layers : 0;
  return f;
}

StageSplit priced_split(const Scenario& scenario, const ParallelConfig& p) {
  // The same call evaluate() makes (core/src/model/estimate.cpp).
  return plan_split(scenario.model, p);
}

namespace {

/// A model's shape, to tell a preset from a custom model that borrowed its id.
struct Shape {
  int layers, hidden, heads, kv_heads, ffn, vocab;
  double rope_theta;
  int experts, top_k, shared, expert_ffn, dense_layers;
  // The 2026 features (specs.h), at their defaults unless an entry sets them.
  int every = 1, head_dim = 0;
  bool qk_norm = false, linear_bias = false, sinks = false;
  int window = 0, global_every = 0;
  bool chunked = false;
  Activation activation = Activation::kSwiglu;
  const char* hybrid = "";  ///< the hybrid pattern; mamba heads, head width, state, groups
  int mamba_heads = 0, mamba_head_dim = 0, mamba_state = 0, mamba_groups = 0;
};

bool has_shape(const ModelSpec& m, const Shape& s) {
  const MoeSpec moe = m.moe.value_or(MoeSpec{});
  const LocalAttentionSpec local = m.local_attention.value_or(LocalAttentionSpec{});
  return m.layers == s.layers && m.hidden == s.hidden && m.heads == s.heads &&
         m.kv_heads == s.kv_heads && m.ffn_hidden == s.ffn && m.vocab == s.vocab &&
         m.activation == s.activation && !m.learned_positions && !m.tied_embeddings &&
         m.hybrid_pattern == s.hybrid && m.mamba.has_value() == (s.mamba_heads > 0) &&
         (!m.mamba || (m.mamba->heads == s.mamba_heads && m.mamba->head_dim == s.mamba_head_dim &&
                       m.mamba->state == s.mamba_state && m.mamba->groups == s.mamba_groups)) &&
         !m.dropout && m.rope_theta == s.rope_theta && moe.experts == s.experts &&
         moe.top_k == s.top_k && moe.shared_experts == s.shared &&
         moe.expert_ffn_hidden == s.expert_ffn && moe.dense_layers == s.dense_layers &&
         (moe.experts == 0 || moe.every == s.every) && m.head_dim == s.head_dim &&
         m.qk_norm == s.qk_norm && m.linear_bias == s.linear_bias && m.attention_sinks == s.sinks &&
         (m.local_attention ? local.tokens : 0) == s.window &&
         (m.local_attention ? local.global_every : 0) == s.global_every &&
         (m.local_attention && local.chunked) == s.chunked && m.mtp_layers == 0;
}

}  // namespace

TitanModel titan_model(const ModelSpec& m) {
  // Shapes of torchtitan b5bcd76c torchtitan/models/llama3/__init__.py (_8b, _70b, _405b:
  // ffn = compute_ffn_hidden_dim(dim, multiple_of, ffn_dim_multiplier), vocab 128256, theta
  // 500000) and torchtitan/models/deepseek_v3/__init__.py (_671b: 61 layers, dim 7168, 128
  // heads, dense 18432, 256 experts of 2048, 1 shared, top-8, 3 dense layers, theta 10000;
  // MLA, which pplan counts as 128-head attention).
  struct Entry {
    const char* id;
    TitanModel model;
    Shape shape;
  };
  static const Entry entries[] = {
      {"llama3-8b",
       {true, "llama3", "llama3_8b", "8B"},
       {32, 4096, 32, 8, 14336, 128256, 500000, 0, 0, 0, 0, 0}},
      {"llama3-70b",
       {true, "llama3", "llama3_70b", "70B"},
       {80, 8192, 64, 8, 28672, 128256, 500000, 0, 0, 0, 0, 0}},
      {"llama3-405b",
       {true, "llama3", "llama3_405b", "405B"},
       {126, 16384, 128, 8, 53248, 128256, 500000, 0, 0, 0, 0, 0}},
      {"deepseek-v3",
       {true, "deepseek_v3", "deepseek_v3_671b", "671B"},
       {61, 7168, 128, 128, 18432, 129280, 10000, 256, 8, 1, 2048, 3}},
  };
  for (const Entry& e : entries) {
    if (m.id == e.id && has_shape(m, e.shape)) return e.model;
  }
  return {};
}

TitanDp titan_dp(const ParallelConfig& p) {
  // torchtitan b5bcd76c torchtitan/distributed/fsdp.py get_fsdp_reshard_after_forward_policy:
  // "default" keeps weights gathered after forward under PP, so ZeRO-3 says "always".
  TitanDp d;
  if (p.zero == 0) {
    d.replicate = p.dp;
    d.note = "ZeRO-0: weights replicated over DP";
  } else if (p.zero == 3) {
    d.shard = p.dp;
    d.reshard = "always";
    d.note = "ZeRO-3 = FSDP2, weights resharded after every forward";
  } else {
    d.shard = p.dp;
    d.reshard = "never";
    d.note = "ZeRO-2 = FSDP2 keeping weights gathered from forward to backward";
  }
  return d;
}

TitanPipeline titan_pipeline(const StageSplit& split, const ParallelConfig& p) {
  TitanPipeline t;
  // torch.distributed.pipelining's names (get_schedule_class; torchtitan b5bcd76c
  // distributed/pipeline_parallel.py:205). DualPipe has none (schedule_unsupported).
  switch (p.schedule) {
    case ScheduleKind::kOneFOneB: t.schedule = "1F1B"; break;
    case ScheduleKind::kInterleaved: t.schedule = "Interleaved1F1B"; break;
    case ScheduleKind::kZbH1: t.schedule = "InterleavedZeroBubble"; break;
    case ScheduleKind::kZbV: t.schedule = "ZBVZeroBubble"; break;
    case ScheduleKind::kDualPipe: t.schedule = "DualPipe"; break;
    case ScheduleKind::kDualPipeV: t.schedule = "DualPipeV"; break;
  }
  const int vpp = std::max(1, p.vpp);
  // Layers per rank: the units of an even split (embedding and loss counted as one layer each
  // are torchtitan's first/last "less" layers), or the largest stage of an uneven one.
  const int per = split.units_per_stage > 0 ? split.units_per_stage : split.max_layers();
  t.layers_per_stage = per % vpp == 0 ? per / vpp : 0;  // 0: no torchtitan equivalent
  if (split.units_per_stage > 0) {
    t.first_less = split.embedding_counted ? 1 : 0;
    t.last_less = split.loss_counted ? 1 : 0;
  } else {
    t.first_less = per - split.first_layers;
    t.last_less = per - split.last_layers;
  }
  return t;
}

NemoRecipe nemo_recipe(const ModelSpec& m) {
  // Recipes of NeMo 8cfedd72 nemo/collections/llm/recipes/ and the shapes of their model
  // configs (gpt/model/llama.py Llama3Config8B/70B, Llama31Config405B; mixtral.py
  // MixtralConfig8x7B; deepseek.py DeepSeekV3Config; base.py GPTConfig175B).
  struct Entry {
    const char* id;
    const char* recipe;
    Shape shape;
  };
  static const Entry entries[] = {
      {"llama3-8b", "llama3_8b", {32, 4096, 32, 8, 14336, 128256, 500000, 0, 0, 0, 0, 0}},
      {"llama3-70b", "llama3_70b", {80, 8192, 64, 8, 28672, 128256, 500000, 0, 0, 0, 0, 0}},
      {"llama3-405b", "llama31_405b", {126, 16384, 128, 8, 53248, 128256, 500000, 0, 0, 0, 0, 0}},
      {"mixtral-8x7b", "mixtral_8x7b", {32, 4096, 32, 8, 14336, 32000, 1e6, 8, 2, 0, 14336, 0}},
      {"deepseek-v3",
       "deepseek_v3",
       {61, 7168, 128, 128, 18432, 129280, 10000, 256, 8, 1, 2048, 3}},
      // gpt/model/qwen3.py Qwen3MoEConfig30B_A3B / 235B_A22B (kv_channels 128, qk_layernorm).
      {"qwen3-30b-a3b", "qwen3_30b_a3b",
       {48, 2048, 32, 4, 6144, 151936, 1e6, 128, 8, 0, 768, 0, 1, 128, true}},
      {"qwen3-235b-a22b", "qwen3_235b_a22b",
       {94, 4096, 64, 4, 12288, 151936, 1e6, 128, 8, 0, 1536, 0, 1, 128, true}},
      // gpt/model/gpt_oss.py GPTOSSConfig120B / 20B: biases, learnable softmax (sinks), window
      // 128 with window_attn_skip_freq 2.
      {"gpt-oss-120b", "gpt_oss_120b",
       {36, 2880, 64, 8, 2880, 201088, 150000, 128, 4, 0, 2880, 0, 1, 64, false, true, true, 128, 2, false,
        Activation::kClampedSwiglu}},
      {"gpt-oss-20b", "gpt_oss_20b",
       {24, 2880, 64, 8, 2880, 201088, 150000, 32, 4, 0, 2880, 0, 1, 64, false, true, true, 128, 2, false,
        Activation::kClampedSwiglu}},
      // gpt/model/llama.py Llama4Experts16Config / 128Config: chunked attention of 8192 with a
      // NoPE layer every 4 (nope_layer_interval), one shared expert; 128E every other layer.
      {"llama4-scout", "llama4_e16",
       {48, 5120, 40, 8, 16384, 202048, 500000, 16, 1, 1, 8192, 0, 1, 0, false, false, false, 8192, 4, true}},
      {"llama4-maverick", "llama4_e128",
       {48, 5120, 40, 8, 16384, 202048, 500000, 128, 1, 1, 8192, 0, 2, 0, false, false, false, 8192, 4, true}},
      // gpt/model/ssm.py NemotronHConfig56B: the hybrid pattern, squared-ReLU MLPs, Mamba-2 of
      // 256 heads of 64 (2·hidden / 64), state 256, 8 groups; no positional embedding.
      {"nemotron-h-56b", "nemotronh_56b",
       {118, 8192, 64, 8, 32768, 131072, 10000, 0, 0, 0, 0, 0, 1, 0, false, false, false, 0, 0, false,
        Activation::kSquaredRelu,
        "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-"
        "M*-M-M-M-M-M*-M-M-M-M-M-",
        256, 64, 256, 8}},
  };
  for (const Entry& e : entries) {
    // NeMo's DeepSeek-V3 recipe has DeepSeek's MTP module (use_mtp), so MTP depth 1 is its shape.
    ModelSpec base = m;
    if (std::string_view(e.recipe) == "deepseek_v3" && base.mtp_layers == 1) base.mtp_layers = 0;
    if (m.id == e.id && has_shape(base, e.shape)) return {e.recipe, true};
  }
  // GPTConfig175B: 96 layers of 12288, 96 heads, GeLU, learned positions, tied embeddings.
  if (m.id == "gpt3-175b" && m.layers == 96 && m.hidden == 12288 && m.heads == 96 &&
      m.kv_heads == 96 && m.ffn_hidden == 49152 && m.activation == Activation::kGelu &&
      m.learned_positions && m.tied_embeddings && !m.moe) {
    return {"gpt3_175b", true};
  }
  // Anything else: the recipe of its family, with every architecture field overridden.
  return {m.learned_positions ? "gpt3_175b" : "llama3_8b", false};
}

}  // namespace detail

LaunchFramework launch_framework_of(Framework framework) {
  switch (framework) {
    case Framework::kMegatronCore:
      return LaunchFramework::kNemo;
    case Framework::kMegatronLm:
      return LaunchFramework::kMegatron;
    case Framework::kDeepSpeed:
      return LaunchFramework::kDeepSpeed;
    case Framework::kTorchtitan:
      return LaunchFramework::kTorchtitan;
  }
  return LaunchFramework::kNemo;
}

const char* framework_name(LaunchFramework framework) {
  switch (framework) {
    case LaunchFramework::kMegatron:
      return "megatron";
    case LaunchFramework::kTorchtitan:
      return "torchtitan";
    case LaunchFramework::kTorchtitanToml:
      return "torchtitan-toml";
    case LaunchFramework::kDeepSpeed:
      return "deepspeed";
    case LaunchFramework::kNemo:
      return "nemo";
  }
  return "";
}

namespace {

/// Where each rule comes from: the framework's own source line that states it ("<project>
/// <commit> <path>:<line>"), or "pplan: ..." for the few rules that are pplan's own. Every
/// code the rules below can report has a row (RulesTest.EveryProblemCodeNamesItsSource).
struct ProblemSource {
  std::string_view code;
  std::string_view source;
};
constexpr ProblemSource kProblemSources[] = {
    {"launch.world_size_mismatch", "Megatron-LM d98e8a64 megatron/training/arguments.py:432"},
    {"nemo.no_nvfp4", "pplan: NeMo 2.0's precision factories have FP8 and MXFP8, no NVFP4 (NeMo 0a07447c nemo/collections/llm/recipes/precision/mixed_precision.py)"},
    {"launch.partial_node", "NeMo-Run 0c491271 nemo_run/core/execution/slurm.py:306"},
    {"launch.ep_without_moe", "Megatron-LM d98e8a64 megatron/training/arguments.py:1656"},
    {"launch.ep_not_divisible", "Megatron-LM d98e8a64 megatron/training/arguments.py:1657"},
    {"launch.expert_grid", "Megatron-LM d98e8a64 megatron/core/parallel_state.py:881"},
    {"megatron.batch_not_divisible", "Megatron-LM d98e8a64 megatron/core/num_microbatches_calculator.py:381"},
    {"megatron.heads_not_divisible", "Megatron-LM d98e8a64 megatron/core/transformer/transformer_config.py:1448"},
    {"megatron.query_groups", "Megatron-LM d98e8a64 megatron/core/transformer/transformer_config.py:1466"},
    {"megatron.layers_not_divisible", "Megatron-LM d98e8a64 megatron/core/transformer/transformer_config.py:2351"},
    {"megatron.vpp_needs_pp", "Megatron-LM d98e8a64 megatron/core/pipeline_parallel/schedules.py:750"},
    {"megatron.vpp_not_divisible", "Megatron-LM d98e8a64 megatron/core/transformer/transformer_config.py:2366"},
    {"megatron.vpp_microbatches", "Megatron-LM d98e8a64 megatron/core/pipeline_parallel/schedules.py:1173"},
    {"megatron.cp_seq_not_divisible", "Megatron-LM d98e8a64 megatron/training/arguments.py:1336"},
    {"megatron.cp_needs_te_attention", "TransformerEngine d0067d0d transformer_engine/pytorch/attention/dot_product_attention/utils.py:1171"},
    {"megatron.mamba_tp", "Megatron-LM d98e8a64 megatron/core/ssm/mamba_mixer.py:262"},
    {"megatron.hybrid", "Megatron-LM d98e8a64 megatron/training/arguments.py:745"},
    {"megatron.geglu", "Megatron-LM d98e8a64 megatron/training/arguments.py:2452"},
    {"megatron.chunked_attention", "Megatron-LM d98e8a64 megatron/core/transformer/transformer_config.py:247"},
    {"deepspeed.model_feature", "Megatron-DeepSpeed 4efb479d megatron/model/transformer.py:526"},
    {"megatron.fp8_unsupported", "TransformerEngine d0067d0d transformer_engine/pytorch/quantization.py:154"},
    {"megatron.fp8_recipe_hardware", "TransformerEngine d0067d0d transformer_engine/pytorch/quantization.py:168"},
    {"megatron.rope_theta_not_integer", "Megatron-LM d98e8a64 megatron/training/arguments.py:2418"},
    {"megatron.priced_for_another_framework", "pplan: the scenario's training.framework is not Megatron-Core/Megatron-LM; the plan was priced with another framework's kernels and communication"},
    {"megatron.offload_cuda_graphs", "Megatron-LM d98e8a64 megatron/core/transformer/transformer_config.py:2800"},
    {"torchtitan.no_activation_offload", "torchtitan b5bcd76c torchtitan/config/configs.py:70"},
    {"deepspeed.no_activation_offload", "pplan: Megatron-DeepSpeed 4efb479d offloads activations only with checkpointing (cpu_checkpointing), not whole layers' activations as priced"},
    {"megatron.fp8_params_need_zero", "Megatron-LM d98e8a64 megatron/training/arguments.py:1095"},
    {"torchtitan.fp8_params", "torchtitan b5bcd76c torchtitan/components/quantization/float8.py:57"},
    {"deepspeed.fp8_params", "pplan: Megatron-DeepSpeed 4efb479d has no --fp8-param-gather (its FP8 keeps BF16 weights)"},
    {"megatron.optimizer_state_needs_zero", "Megatron-LM d98e8a64 megatron/core/optimizer/__init__.py:1059"},
    {"megatron.flex_needs_tp_ep", "Megatron-LM d98e8a64 megatron/core/transformer/moe/token_dispatcher.py:1836"},
    {"megatron.moe_overlap_needs_vpp", "Megatron-LM d98e8a64 megatron/core/transformer/transformer_config.py:3008"},
    {"megatron.moe_overlap_needs_ep", "Megatron-LM d98e8a64 megatron/core/transformer/transformer_config.py:3013"},
    {"megatron.moe_overlap_full_recompute", "Megatron-LM d98e8a64 megatron/core/transformer/transformer_config.py:3022"},
    {"megatron.moe_overlap_mtp", "Megatron-LM d98e8a64 megatron/core/transformer/transformer_config.py:3042"},
    {"deepspeed.moe_dispatch", "DeepSpeed edaa7221 deepspeed/moe/layer.py:38"},
    {"deepspeed.recompute_modules", "pplan: Megatron-DeepSpeed 4efb479d has no --recompute-modules; its selective granularity reruns the attention core alone"},
    {"torchtitan.moe_dispatch", "torchtitan b5bcd76c torchtitan/models/common/config_utils.py:364"},
    {"megatron.param_gather_needs_grad_reduce", "Megatron-LM d98e8a64 megatron/training/arguments.py:1029"},
    {"megatron.cuda_graphs_full_recompute", "Megatron-LM d98e8a64 megatron/core/transformer/transformer_config.py:2858"},
    {"megatron.cuda_graphs_dropout_recompute", "Megatron-LM d98e8a64 megatron/core/transformer/transformer_config.py:2883"},
    {"megatron.cuda_graphs_moe", "Megatron-LM d98e8a64 megatron/core/transformer/transformer_config.py:1019"},
    {"torchtitan.priced_for_another_framework", "pplan: the scenario's training.framework is not torchtitan; the plan was priced with another framework's kernels and communication"},
    {"torchtitan.no_model", "torchtitan b5bcd76c torchtitan/models/llama3/__init__.py:359"},
    {"torchtitan.tp_kv_heads", "torchtitan b5bcd76c torchtitan/models/common/decoder.py:195"},
    {"torchtitan.tp_without_sp", "torchtitan 238fa995 torchtitan/models/llama3/infra/parallelize.py:219"},
    {"torchtitan.no_expert_tp", "torchtitan b5bcd76c torchtitan/config/configs.py:288"},
    {"torchtitan.ep_not_divisible", "torchtitan b5bcd76c torchtitan/distributed/parallel_dims.py:188"},
    {"torchtitan.selective_recompute", "torchtitan b5bcd76c torchtitan/distributed/activation_checkpoint.py:271"},
    {"torchtitan.no_zero1", "torchtitan b5bcd76c torchtitan/config/configs.py:140"},
    {"torchtitan.zero0_sharded", "torchtitan b5bcd76c torchtitan/distributed/parallel_dims.py:225"},
    {"torchtitan.cp_allgather", "torchtitan b5bcd76c torchtitan/models/common/decoder_sharding.py:276"},
    {"torchtitan.tokens_not_divisible", "torchtitan b5bcd76c torchtitan/trainer.py:302"},
    {"torchtitan.split_differs", "torchtitan b5bcd76c torchtitan/distributed/pipeline_parallel.py:398"},
    {"torchtitan.reduce_dtype", "torchtitan b5bcd76c torchtitan/config/configs.py:102"},
    {"torchtitan.overlap_always", "torchtitan b5bcd76c torchtitan/distributed/fsdp.py:385"},
    {"torchtitan.no_cuda_graphs", "torchtitan b5bcd76c torchtitan/config/configs.py:75"},
    {"torchtitan.cuda_graphs_pipeline", "torchtitan b5bcd76c torchtitan/trainer.py:174"},
    {"torchtitan.fp8_recipe", "torchtitan b5bcd76c torchtitan/components/quantization/float8.py:58"},
    {"torchtitan.optimizer_state_dtype", "torchtitan 238fa995 torchtitan/config/job_config.py:151"},
    {"torchtitan.partial_recompute", "torchtitan 238fa995 torchtitan/distributed/activation_checkpoint.py:40"},
    {"deepspeed.priced_for_another_framework", "pplan: the scenario's training.framework is not deepspeed; the plan was priced with another framework's kernels and communication"},
    {"deepspeed.zero_with_pipeline", "DeepSpeed edaa7221 deepspeed/runtime/pipe/engine.py:77"},
    {"deepspeed.zero0_pipeline", "DeepSpeed edaa7221 deepspeed/runtime/engine.py:2014"},
    {"deepspeed.pipeline_no_overlap", "DeepSpeed edaa7221 deepspeed/runtime/engine.py:2392"},
    {"deepspeed.pipeline_split", "Megatron-DeepSpeed 4efb479d megatron/model/gpt_model.py:463"},
    {"deepspeed.no_interleaving", "DeepSpeed edaa7221 deepspeed/runtime/pipe/engine.py:389"},
    {"deepspeed.no_ring_cp", "Megatron-DeepSpeed 4efb479d megatron/arguments.py:974"},
    {"deepspeed.no_mla", "Megatron-DeepSpeed 4efb479d megatron/model/transformer.py:526"},
    {"deepspeed.moe_shared_experts", "DeepSpeed edaa7221 deepspeed/moe/layer.py:83"},
    {"deepspeed.moe_expert_width", "Megatron-DeepSpeed 4efb479d megatron/model/transformer.py:112"},
    {"deepspeed.moe_zero3", "DeepSpeed edaa7221 deepspeed/runtime/engine.py:1890"},
    {"deepspeed.moe_tp", "DeepSpeed edaa7221 deepspeed/moe/sharded_moe.py:717"},
    {"deepspeed.fp8_pipeline", "Megatron-DeepSpeed 4efb479d megatron/model/gpt_model.py:388"},
    {"deepspeed.fp8_moe", "Megatron-DeepSpeed 4efb479d megatron/model/transformer.py:1774"},
    {"deepspeed.fp8_model", "Megatron-DeepSpeed 4efb479d megatron/model/transformer.py:1773"},
    {"deepspeed.fp8_recipe", "Megatron-DeepSpeed 4efb479d megatron/model/transformer.py:1724"},
    {"deepspeed.optimizer_state_needs_zero", "DeepSpeed edaa7221 deepspeed/runtime/config.py:1044"},
    {"deepspeed.optimizer_state_fp32_grads", "DeepSpeed edaa7221 docs/_pages/config-json.md:372"},
    {"deepspeed.zero0_no_overlap", "DeepSpeed edaa7221 deepspeed/runtime/engine.py:2913"},
    {"deepspeed.no_param_gather_overlap", "DeepSpeed edaa7221 deepspeed/runtime/zero/stage_1_and_2.py:2394"},
    {"deepspeed.zero0_fp32_grads", "DeepSpeed edaa7221 deepspeed/runtime/engine.py:2021"},
    {"deepspeed.partial_recompute_pipeline", "Megatron-DeepSpeed 4efb479d megatron/model/gpt_model.py:449"},
    {"deepspeed.no_tp_overlap", "pplan: Megatron-DeepSpeed 4efb479d has no TP comm/GEMM overlap to cite (no tp-comm-overlap or userbuffers flag; only async input-grad all-reduce in backward)"},
    {"deepspeed.no_cuda_graphs", "DeepSpeed edaa7221 docs/_pages/config-json.md:899"},
    {"megatron.schedule_unsupported", "Megatron-LM d98e8a64 megatron/core/pipeline_parallel/schedules.py:154"},
    {"torchtitan.schedule_unsupported", "torchtitan b5bcd76c torchtitan/distributed/pipeline_parallel.py:252"},
    {"megatron.activation_fp8_store_no_flag", "Megatron-LM d98e8a64 megatron/training/arguments.py:2329"},
    {"torchtitan.activation_fp8_store", "pplan: torchtitan b5bcd76c has no FP8 storage of an activation's input (its Float8 converters quantise linear layers only)"},
    {"megatron.fp8_attention_no_flag", "Megatron-LM d98e8a64 megatron/training/arguments.py:2333"},
    {"torchtitan.fp8_attention", "pplan: torchtitan b5bcd76c has no FP8 attention (its Float8 converters quantise linear layers only)"},
    {"deepspeed.fp8_attention", "pplan: Megatron-DeepSpeed 4efb479d has no FP8 attention switch"},
    {"deepspeed.activation_fp8_store", "pplan: Megatron-DeepSpeed 4efb479d has no --activation-func-fp8-input-store (its SwiGLU is eager PyTorch)"},
    {"deepspeed.schedule_unsupported", "DeepSpeed edaa7221 deepspeed/runtime/pipe/engine.py:389"},
};

}  // namespace

std::string_view problem_source(std::string_view code) {
  for (const ProblemSource& row : kProblemSources) {
    if (row.code == code) return row.source;
  }
  return {};
}

namespace {

using detail::LaunchFacts;

/// Collects problems, or only the first code: messages are built only when collecting, from a
/// pattern in which each "{}" is the next number and "{s}" the text (made safe for comments).
class ProblemSink {
 public:
  /// `plan_only`: pass over the problems no parallel configuration can avoid or that only the
  /// script writer has (plan_independent_problem), as the search does.
  explicit ProblemSink(std::vector<LaunchProblem>* all, bool plan_only = false)
      : all_(all), plan_only_(plan_only) {}
  /// Records a problem; true when the caller should stop (first-code mode).
  bool add(const char* code, const char* pattern, std::initializer_list<long long> numbers = {},
           std::string_view text = {}) {
    if (plan_only_ && plan_independent_problem(code)) return false;
    if (first_ == nullptr) first_ = code;
    if (all_ == nullptr) return true;
    std::string message;
    const long long* next = numbers.begin();
    for (const char* c = pattern; *c != '\0'; ++c) {
      if (c[0] == '{' && c[1] == '}' && next != numbers.end()) {
        message += std::to_string(*next++);
        ++c;
      } else if (c[0] == '{' && c[1] == 's' && c[2] == '}') {
        message += printable(text);
        c += 2;
      } else {
        message += *c;
      }
    }
    all_->push_back({code, message, std::string(problem_source(code))});
    return false;
  }
  const char* first() const { return first_; }

 private:
  std::vector<LaunchProblem>* all_;
  bool plan_only_;
  const char* first_ = nullptr;
};

/// Whether the plan was priced with Megatron-Core's own MoE dispatch: the flex (DeepEP)
/// dispatcher or the combined-1F1B all-to-all overlap, which the other launches do not write.
bool megatron_moe_dispatch(const TrainingSpec& t) {
  return t.moe_dispatcher != MoeDispatcher::kAllToAll || t.overlap_moe_expert_parallel_comm;
}

/// launch.*: the grid does not match the cluster, nodes would run different process counts,
/// or the expert grid does not tile the world. Returns true to stop.
bool grid_rules(const Scenario& s, const LaunchFacts& f, ProblemSink& sink) {
  const ParallelConfig& p = f.parallel;
  if (f.world_size != s.cluster.gpus &&
      sink.add("launch.world_size_mismatch",
               "tp*pp*dp*cp = {}*{}*{}*{} = {} ranks, but the cluster has {} GPUs (Megatron: "
               "world_size % (TP*PP*CP) == 0 and DP = world/(TP*PP*CP), Megatron-LM d98e8a64 "
               "validate_args)",
               {p.tp, p.pp, p.dp, p.cp, f.world_size, s.cluster.gpus})) {
    return true;
  }
  if (f.world_size > f.gpus_per_node && f.world_size % f.gpus_per_node != 0 &&
      sink.add("launch.partial_node",
               "{} ranks do not fill whole nodes of {} GPUs: torchrun and SLURM start the same "
               "number of processes on every node",
               {f.world_size, f.gpus_per_node})) {
    return true;
  }
  if (p.ep > 1) {
    if (!f.moe) {
      if (sink.add("launch.ep_without_moe",
                   "ep = {} needs --num-experts: the model has no experts (Megatron-LM d98e8a64 "
                   "validate_args)",
                   {p.ep})) {
        return true;
      }
    } else if (s.model.moe->experts % p.ep != 0 &&
               sink.add("launch.ep_not_divisible",
                        "{} experts are not divisible by ep = {} (Megatron-LM d98e8a64 "
                        "validate_args)",
                        {s.model.moe->experts, p.ep})) {
      return true;
    }
  }
  if (f.moe && !expert_grid_tiles(p) &&
      sink.add("launch.expert_grid",
               "the expert grid expert_tp*ep*pp = {} does not divide the world of {} (etp*ep "
               "must divide tp*cp*dp; Megatron-LM d98e8a64 parallel_state.initialize_model_parallel)",
               {1LL * expert_tp(p) * p.ep * p.pp, f.world_size})) {
    return true;
  }
  return false;
}

/// megatron.*: what Megatron-LM d98e8a64 validates (megatron/training/arguments.py
/// validate_args, transformer_config.py, num_microbatches_calculator.py,
/// pipeline_parallel/schedules.py). `general_only` keeps the rules that hold for any
/// framework (batch, heads, split, schedule, CP sequence, FP8 hardware).
bool megatron_rules(const Scenario& s, const LaunchFacts& f, const StageSplit& split,
                    bool general_only, ProblemSink& sink) {
  const ParallelConfig& p = f.parallel;
  const ModelSpec& model = s.model;
  const long long per_step = 1LL * p.micro_batch * p.dp;
  if ((per_step <= 0 || f.global_batch % per_step != 0) &&
      sink.add("megatron.batch_not_divisible",
               "--global-batch-size {} is not a multiple of --micro-batch-size * DP = {}*{} "
               "(Megatron-LM d98e8a64 num_microbatches_calculator.py)",
               {f.global_batch, p.micro_batch, p.dp})) {
    return true;
  }
  if (model.heads % p.tp != 0 &&
      sink.add("megatron.heads_not_divisible",
               "--num-attention-heads {} is not divisible by TP = {} (Megatron-LM d98e8a64 "
               "transformer_config.py)",
               {model.heads, p.tp})) {
    return true;
  }
  if (!general_only && model.kv_heads % p.tp != 0 && p.tp % model.kv_heads != 0 &&
      sink.add("megatron.query_groups",
               "--num-query-groups {} and TP = {} divide neither way (Megatron-LM d98e8a64 "
               "transformer_config.py)",
               {model.kv_heads, p.tp})) {
    return true;
  }
  // megatron/core/ssm/mamba_mixer.py: Mamba heads and groups split evenly over TP.
  if (model.mamba && (model.mamba->heads % p.tp != 0 || model.mamba->groups % p.tp != 0) &&
      sink.add("megatron.mamba_tp",
               "TP = {} must divide the Mamba-2 heads ({}) and groups ({}) (Megatron's MambaMixer "
               "splits both over TP)",
               {p.tp, model.mamba->heads, model.mamba->groups})) {
    return true;
  }
  if (!split.valid &&
      sink.add("megatron.layers_not_divisible", "{s} (Megatron-LM d98e8a64 transformer_config.py)",
               {}, split.reason)) {
    return true;
  }
  if (p.vpp > 1) {
    if (p.pp <= 1) {
      if (sink.add("megatron.vpp_needs_pp",
                   "virtual pipeline stages (vpp = {}) need PP > 1 (Megatron-LM d98e8a64 "
                   "pipeline_parallel/schedules.py)",
                   {p.vpp})) {
        return true;
      }
    } else if (split.valid && !vpp_divides(split, p.vpp) &&
               sink.add("megatron.vpp_not_divisible",
                        "layers per pipeline rank ({}/{}/{}) are not divisible by vpp = {} "
                        "(Megatron-LM d98e8a64 transformer_config.py)",
                        {split.first_layers, split.middle_layers, split.last_layers, p.vpp})) {
      return true;
    }
    // With the default group size PP: m >= PP and m % PP == 0 (schedules.py).
    if (p.schedule == ScheduleKind::kInterleaved && schedule_microbatch_problem(p.schedule, p.pp, f.microbatches) &&
        sink.add("megatron.vpp_microbatches",
                 "the interleaved schedule needs the {} micro-batches per step to be a multiple "
                 "of PP = {} (Megatron-LM d98e8a64 pipeline_parallel/schedules.py)",
                 {f.microbatches, p.pp})) {
      return true;
    }
  }
  if (p.cp > 1 && f.seq_len % (2 * p.cp) != 0 &&
      sink.add("megatron.cp_seq_not_divisible",
               "--seq-length {} is not divisible by 2*CP = {} (Megatron-LM d98e8a64 "
               "validate_args)",
               {f.seq_len, 2 * p.cp})) {
    return true;
  }
  // flash_attention false is --attention-backend unfused: Transformer Engine's unfused attention
  // (NVTE_UNFUSED_ATTN=1, language_module.py), which TE disables under context parallelism,
  // leaving no backend (TE d0067d0d dot_product_attention/utils.py get_attention_backend).
  if (p.cp > 1 && !s.training.flash_attention &&
      sink.add("megatron.cp_needs_te_attention",
               "CP = {} needs Transformer Engine's fused or flash attention, but the plan is "
               "priced with unfused attention (training.flash_attention = false), which "
               "Transformer Engine disables under context parallelism: set "
               "training.flash_attention true or cp 1",
               {p.cp})) {
    return true;
  }
  // FP8 needs Hopper or newer tensor cores (Transformer Engine and torchao refuse otherwise).
  if (f.fp8 && (s.cluster.gpu.fp8_flops_per_s <= 0 || f.ampere) &&
      sink.add("megatron.fp8_unsupported",
               "{s} has no FP8 tensor cores: FP8 training needs compute capability 8.9 or newer "
               "(Ada, Hopper, Blackwell); use precision bf16",
               {}, s.cluster.gpu.name)) {
    return true;
  }
  // Transformer Engine's MXFP8 and NVFP4 recipes need Blackwell's block-scaled tensor cores (TE
  // docs, "MXFP8" and "NVFP4": hardware support first appeared in Blackwell, SM 10.0); Hopper
  // has none.
  const bool block_scaled = f.fp8_recipe == Fp8Recipe::kMxfp8 || f.fp8_recipe == Fp8Recipe::kNvfp4;
  if (f.fp8 && block_scaled && !f.blackwell && !f.ampere &&
      sink.add("megatron.fp8_recipe_hardware",
               f.fp8_recipe == Fp8Recipe::kMxfp8
                   ? "training.fp8_recipe \"mxfp8\" needs Blackwell tensor cores; {s} has none: use "
                     "\"delayed\", \"current\" or \"blockwise\""
                   : "training.fp8_recipe \"nvfp4\" needs Blackwell tensor cores; {s} has none: use "
                     "\"delayed\", \"current\" or \"blockwise\"",
               {}, s.cluster.gpu.name)) {
    return true;
  }
  // --rotary-base is an int (Megatron-LM d98e8a64 megatron-flags: type int; Megatron-DeepSpeed
  // 4efb479d --rotary-position-embeddings-theta type=int).
  if (!general_only && !model.learned_positions &&
      model.rope_theta != std::floor(model.rope_theta) &&
      sink.add("megatron.rope_theta_not_integer",
               "rope_theta is not a whole number: Megatron's --rotary-base takes an int")) {
    return true;
  }
  return false;
}

/// The training stacks whose step time a launch framework runs as priced: the framework sets the
/// kernels each layer launches (framework/framework.h kernels_per_layer_forward), DeepSpeed's flat
/// ZeRO-3 gathers, torchtitan's per-micro-batch ZeRO-2 gathers and deferred gradient sync
/// (estimate.cpp). Megatron-LM and NeMo both run Megatron-Core: either framework's pricing.
bool prices_framework(LaunchFramework launch, Framework priced) {
  switch (launch) {
    case LaunchFramework::kMegatron:
    case LaunchFramework::kNemo:
      return priced == Framework::kMegatronCore || priced == Framework::kMegatronLm;
    case LaunchFramework::kTorchtitan:
    case LaunchFramework::kTorchtitanToml:
      return priced == Framework::kTorchtitan;
    case LaunchFramework::kDeepSpeed:
      return priced == Framework::kDeepSpeed;
  }
  return false;
}

/// <prefix>.priced_for_another_framework. Returns true to stop.
bool framework_rule(LaunchFramework launch, const char* code, const Scenario& s,
                    ProblemSink& sink) {
  return !prices_framework(launch, s.training.framework) &&
         sink.add(code,
                  "the plan is priced for {s} (training.framework), whose kernels and "
                  "communication differ from this format's framework: set training.framework to "
                  "the framework you launch and plan again",
                  {}, framework_name(s.training.framework));
}

/// megatron.*: the training switches as Megatron-Core runs them (Megatron-LM and NeMo): DP
/// overlap, CUDA graphs.
bool megatron_core_rules(const Scenario& s, const LaunchFacts& f, ProblemSink& sink) {
  const ParallelConfig& p = f.parallel;
  // Megatron-LM d98e8a64 megatron/core/optimizer/__init__.py get_megatron_optimizer:
  // "--use-precision-aware-optimizer only supported with distributed optimizer".
  if (f.fp8_params && p.zero == 0 &&
      sink.add("megatron.fp8_params_need_zero",
               "FP8 parameters (training.fp8_param_gather, --fp8-param-gather) need the distributed "
               "optimizer or FSDP (arguments.py): use zero >= 1 or training.fp8_param_gather false")) {
    return true;
  }
  if (f.bf16_optimizer_state && p.zero == 0 &&
      sink.add("megatron.optimizer_state_needs_zero",
               "bf16 optimizer state (training.optimizer_state_dtype) runs in Megatron's "
               "precision-aware optimizer, which needs the distributed optimizer: use zero >= 1 "
               "or training.optimizer_state_dtype \"fp32\"")) {
    return true;
  }
  if (f.moe && s.training.moe_dispatcher == MoeDispatcher::kFlex && 1LL * p.tp * p.ep <= 1 &&
      sink.add("megatron.flex_needs_tp_ep",
               "the flex (DeepEP) dispatcher needs TP x EP > 1 (token_dispatcher.py): use ep > 1 or "
               "training.moe_dispatcher \"alltoall\"")) {
    return true;
  }
  if (f.moe && s.training.overlap_moe_expert_parallel_comm) {
    // Megatron-LM d98e8a64 transformer_config.py __post_init__, overlap_moe_expert_parallel_comm.
    if (p.pp > 1 && p.vpp <= 1 &&
        sink.add("megatron.moe_overlap_needs_vpp",
                 "Megatron overlaps the EP all-to-all (combined 1F1B) only with a virtual pipeline "
                 "when pp > 1 (transformer_config.py): set vpp > 1 or "
                 "training.overlap_moe_expert_parallel_comm false")) {
      return true;
    }
    if (p.ep <= 1 &&
        sink.add("megatron.moe_overlap_needs_ep",
                 "overlap_moe_expert_parallel_comm needs expert parallelism (ep > 1)")) {
      return true;
    }
    if (p.recompute == Recompute::kFull &&
        sink.add("megatron.moe_overlap_full_recompute",
                 "Megatron disables full recomputation with the EP all-to-all overlap "
                 "(transformer_config.py): use recompute none or selective")) {
      return true;
    }
    if (s.model.mtp_layers > 1 &&
        sink.add("megatron.moe_overlap_mtp",
                 "the EP all-to-all overlap supports at most one MTP layer (transformer_config.py); "
                 "the model has {}",
                 {s.model.mtp_layers})) {
      return true;
    }
  }
  // Megatron-LM d98e8a64 arguments.py validate_args: "Must use --overlap-param-gather with
  // --overlap-grad-reduce".
  if (f.param_overlap && !f.grad_overlap &&
      sink.add("megatron.param_gather_needs_grad_reduce",
               "the plan overlaps the weight all-gather but not the gradient reduction; Megatron "
               "allows --overlap-param-gather only with --overlap-grad-reduce (validate_args): set "
               "training.overlap_grad_reduce true or training.overlap_param_gather false")) {
    return true;
  }
  // A MoE plan's graph is the full-iteration one, which runs with CPU offloading (below).
  if (f.cuda_graphs && !f.moe && p.offload_layers > 0 &&
      sink.add("megatron.offload_cuda_graphs",
               "Megatron's per-layer CUDA graphs do not support CPU offloading (transformer_config.py): "
               "use parallel.offload_layers 0 or training.cuda_graphs false")) {
    return true;
  }
  if (f.cuda_graphs) {
    // Megatron-LM d98e8a64 transformer_config.py __post_init__: per-layer CUDA graphs (local and
    // transformer_engine) reject full recompute ("full recompute is only supported with full
    // iteration CUDA graph"), graphed attention recompute with attention dropout, and graph only
    // drop-padding MoE experts ("moe cuda graph is only supported with drop-padding MoE"), while
    // pplan prices every layer's kernels without host cost. A dropless MoE layer is captured
    // whole only by the full-iteration graph (cuda_graph_impl "full_iteration", :1075), whose
    // static shapes come from the flex dispatcher's per-rank token budget
    // (moe_expert_rank_capacity_factor, :1019; token_dispatcher.py:1486): a MoE plan runs that
    // graph, which also takes full recompute and CPU offloading (:2800, :2857).
    if (p.recompute == Recompute::kFull && !f.moe &&
        sink.add("megatron.cuda_graphs_full_recompute",
                 "Megatron's per-layer CUDA graphs do not support full recompute "
                 "(transformer_config.py): use recompute none or selective, or "
                 "training.cuda_graphs false")) {
      return true;
    }
    if (p.recompute == Recompute::kSelective && s.model.dropout &&
        sink.add("megatron.cuda_graphs_dropout_recompute",
                 "Megatron's CUDA graphs cannot recompute the attention core of a model with "
                 "dropout (transformer_config.py): use recompute none or training.cuda_graphs "
                 "false")) {
      return true;
    }
    if (f.moe && s.training.moe_dispatcher != MoeDispatcher::kFlex &&
        sink.add("megatron.cuda_graphs_moe",
                 "Megatron graphs a dropless MoE layer's experts only in its full-iteration graph, "
                 "which needs the flex dispatcher (transformer_config.py): set "
                 "training.moe_dispatcher \"flex\" or training.cuda_graphs false")) {
      return true;
    }
    // Megatron-FSDP runs under CUDA graphs in its graph-safe mode (Megatron-LM d98e8a64
    // megatron/training/training.py: megatron_fsdp_cuda_graph_mode), so ZeRO-2/3 are allowed.
  }
  return false;
}

/// Training switches priced as Megatron-Core's TransformerConfig runs them that other launches
/// cannot write: torchtitan and Megatron-DeepSpeed have no such switch, and Megatron-LM's command
/// line no flag (NeMo's recipes set the field).
struct TrainingSwitch {
  bool LaunchFacts::*on;
  const char* field;  ///< the scenario's training.<field>
  const char* what;   ///< what the plan does with it
  const char* torchtitan_code;
  const char* deepspeed_code;
  const char* megatron_code;
};
constexpr TrainingSwitch kTrainingSwitches[] = {
    {&LaunchFacts::activation_fp8_store, "activation_func_fp8_input_store", "keeps SwiGLU's input in FP8",
     "torchtitan.activation_fp8_store", "deepspeed.activation_fp8_store", "megatron.activation_fp8_store_no_flag"},
    {&LaunchFacts::fp8_attention, "fp8_dot_product_attention", "runs attention in FP8 (Transformer Engine's fp8_dpa)",
     "torchtitan.fp8_attention", "deepspeed.fp8_attention", "megatron.fp8_attention_no_flag"},
};

/// The first training switch the plan uses that `framework` lacks, as a problem.
bool lacks_switch(const LaunchFacts& f, const char* const TrainingSwitch::*code, const char* framework,
                  ProblemSink& sink) {
  for (const TrainingSwitch& t : kTrainingSwitches) {
    if (f.*t.on && sink.add(t.*code, "{s}", {},
                            std::string("the plan ") + t.what + ", which " + framework + " cannot: set training." +
                                t.field + " false")) {
      return true;
    }
  }
  return false;
}

/// torchtitan.*: current config registry (b5bcd76c) or the TOML job config (238fa995).
bool torchtitan_rules(const Scenario& s, const LaunchFacts& f, const StageSplit& split, bool toml,
                      ProblemSink& sink) {
  const ParallelConfig& p = f.parallel;
  const ModelSpec& model = s.model;
  if (framework_rule(toml ? LaunchFramework::kTorchtitanToml : LaunchFramework::kTorchtitan,
                     "torchtitan.priced_for_another_framework", s, sink)) {
    return true;
  }
  // torchtitan's only offload switch (enable_cpu_offload) moves FSDP's parameters, gradients and
  // optimizer state, not activations.
  if (p.offload_layers > 0 &&
      sink.add("torchtitan.no_activation_offload",
               "the plan offloads layers' activations to host memory (Megatron's "
               "--cpu-offloading-num-layers), which torchtitan does not do: use "
               "parallel.offload_layers 0")) {
    return true;
  }
  // torchtitan picks DeepEP or HybridEP through its MoE config's comm_backend, which pplan's
  // launch does not write; the combined-1F1B overlap is Megatron-Core's.
  if (f.moe && megatron_moe_dispatch(s.training) &&
      sink.add("torchtitan.moe_dispatch",
               "the plan was priced with Megatron-Core's flex dispatcher or EP all-to-all overlap; "
               "pplan's torchtitan launch runs the all-to-all: use --format megatron or nemo, or the "
               "default dispatcher")) {
    return true;
  }
  if (!detail::titan_model(model).known &&
      sink.add("torchtitan.no_model",
               "torchtitan has no config of {s}'s shape: its registry holds Llama 3 8B/70B/405B "
               "(vocabulary 128,256, RoPE theta 500,000, untied, SwiGLU) and DeepSeek-V3 671B as "
               "published; any other field (a vocabulary of 128,000 too) trains another "
               "architecture: use the preset, register the model in torchtitan, or use --format megatron",
               {}, model.name)) {
    return true;
  }
  // b5bcd76c torchtitan/models/common/decoder.py update_from_config: TP must divide n_heads and
  // n_kv_heads; 238fa995 llama3/model/model.py views the TP-local K/V as (-1, head_dim).
  if ((model.kv_heads % p.tp != 0 || model.heads % p.tp != 0) &&
      sink.add("torchtitan.tp_kv_heads",
               "tensor_parallel_degree {} must divide n_heads {} and n_kv_heads {} (torchtitan "
               "decoder.py)",
               {p.tp, model.heads, model.kv_heads})) {
    return true;
  }
  // 238fa995 llama3/infra/parallelize.py apply_tp: TP always shards the norms' activations
  // (SequenceParallel); only the current registry has enable_sequence_parallel.
  if (toml && p.tp > 1 && !p.sequence_parallel &&
      sink.add("torchtitan.tp_without_sp",
               "TOML-era torchtitan always runs TP with sequence parallelism; set "
               "sequence_parallel true or use --format torchtitan")) {
    return true;
  }
  if (f.moe && !toml && expert_tp(p) > 1 &&
      sink.add("torchtitan.no_expert_tp",
               "current torchtitan has no expert tensor parallelism: EP borrows the TP ranks "
               "(expert_parallel_degree), while the plan "
               "splits each expert over etp = {}; use etp 1, --format torchtitan-toml "
               "(expert_tensor_parallel_degree) or --format megatron",
               {expert_tp(p)})) {
    return true;
  }
  const detail::TitanDp dp = detail::titan_dp(p);
  // b5bcd76c parallel_dims.py: ep divides dp_shard*cp*tp (EP borrows FSDP and TP ranks);
  // 238fa995 parallel_dims.py with ETP = TP: efsdp = dp_shard*cp*tp/(tp*ep).
  // With ETP 1 the TP ranks join the EP region: dp_shard*cp*tp/etp.
  const long long ep_region = 1LL * dp.shard * p.cp * p.tp / expert_tp(p);
  if (f.moe && p.ep > 1 && ep_region % p.ep != 0 &&
      sink.add("torchtitan.ep_not_divisible",
               "torchtitan needs expert_parallel_degree {} to divide dp_shard*cp*tp/etp = {} "
               "(parallel_dims.py)",
               {p.ep, ep_region})) {
    return true;
  }
  // b5bcd76c torchtitan/distributed/activation_checkpoint.py SelectiveAC (238fa995: mode
  // "selective", option "op"): saves matmul and attention outputs and recomputes every second
  // matmul and the element-wise ops, not the attention-core recompute pplan prices.
  if (p.recompute == Recompute::kSelective &&
      sink.add("torchtitan.selective_recompute",
               "torchtitan's selective activation checkpointing is a per-op policy (it "
               "recomputes every second matmul), not the attention-core recompute pplan prices; "
               "use recompute none or full")) {
    return true;
  }
  if (f.data_parallel && p.zero == 1 &&
      sink.add("torchtitan.no_zero1",
               "torchtitan has no ZeRO-1: FSDP2 shards the gradients too (ZeRO-2); use zero 2 "
               "or 3")) {
    return true;
  }
  // FSDP runs over dp_shard*cp: with CP the weights are sharded even at dp_shard 1 (238fa995
  // parallel_dims.py build_mesh "fsdp"; b5bcd76c fsdp mesh); TOML-era DDP is 1-D only
  // (llama3/infra/parallelize.py "DDP has not supported > 1D parallelism").
  const bool other_parallelism = p.tp > 1 || p.pp > 1 || p.cp > 1 || p.ep > 1;
  if (f.data_parallel && p.zero == 0 && (p.cp > 1 || (toml && other_parallelism)) &&
      sink.add("torchtitan.zero0_sharded",
               toml ? "TOML-era torchtitan replicates weights (DDP) only without TP, PP, CP or "
                      "EP, so ZeRO-0 would run as FSDP; use zero 2 or 3"
                    : "torchtitan shards weights over the CP ranks (FSDP over dp_shard*cp), so "
                      "ZeRO-0 would run as FSDP; use zero 2 or 3")) {
    return true;
  }
  // b5bcd76c torchtitan/models/common/attention.py: context parallelism all-gathers K and V;
  // pplan prices the ring exchange (Megatron's p2p). The TOML era can rotate by all-to-all.
  if (!toml && p.cp > 1 &&
      sink.add("torchtitan.cp_allgather",
               "current torchtitan's context parallelism all-gathers K and V, not the ring "
               "exchange pplan prices; use --format torchtitan-toml "
               "(context_parallel_rotate_method \"alltoall\") or --format megatron")) {
    return true;
  }
  // b5bcd76c trainer.py: tokens per micro-batch divisible by (tp if SP) * (2*cp if cp > 1);
  // 238fa995 llama3/infra/parallelize.py: seq_len divisible by tp * 2 * cp.
  const long long tokens = toml ? f.seq_len : 1LL * p.micro_batch * f.seq_len;
  const long long divisor =
      toml ? 2LL * p.tp * p.cp
           : (p.sequence_parallel && p.tp > 1 ? p.tp : 1) * (p.cp > 1 ? 2LL * p.cp : 1);
  if (tokens % divisor != 0 &&
      sink.add("torchtitan.tokens_not_divisible",
               "{} tokens (a sequence, or one micro-batch at HEAD) are not divisible by {}, the "
               "sequence and context parallel shards (torchtitan trainer.py)",
               {tokens, divisor})) {
    return true;
  }
  // torchtitan pipeline_parallel.py (same in both eras): ceil((L + a + b) / k) stages, which
  // must be pp (1F1B) or pp*vpp (Interleaved1F1B, >= 2 per rank); (L + a + b) // stages
  // effective layers each, the remainder one more on the first stages, a and b fewer on the
  // first and last stage; stage s runs on rank s % pp, or under ZBVZeroBubble and DualPipeV
  // ranks r holds stages r and 2pp−1−r (the V, :550-567). Must give pplan's layers per rank.
  if (p.pp > 1 && split.valid) {
    const detail::TitanPipeline t = detail::titan_pipeline(split, p);
    const int vpp = std::max(1, p.vpp);
    const int effective = model.layers + t.first_less + t.last_less;
    bool matches = t.layers_per_stage > 0;
    const int stages = matches ? (effective + t.layers_per_stage - 1) / t.layers_per_stage : 0;
    matches = matches && stages == p.pp * vpp;
    const int each = matches ? effective / stages : 0;
    const int extra = matches ? effective % stages : 0;
    matches = matches && each >= 1 && t.first_less <= each && t.last_less <= each;
    for (int rank = 0; matches && rank < p.pp; ++rank) {
      int layers = 0;
      for (int v = 0; v < vpp; ++v) {
        const int stage = is_v_shape(p.schedule) && v == 1 ? 2 * p.pp - 1 - rank : rank + v * p.pp;
        layers += each + (stage < extra ? 1 : 0) - (stage == 0 ? t.first_less : 0) -
                  (stage == stages - 1 ? t.last_less : 0);
      }
      matches = layers == split.layers_on_stage(rank, p.pp);
    }
    if (!matches &&
        sink.add("torchtitan.split_differs",
                 "torchtitan's pipeline split (pipeline_parallel_layers_per_stage with first/last "
                 "stage less layers) cannot reproduce pplan's {}/{}/{} layers per stage with vpp "
                 "{}; set module_fqns_per_model_part by hand or use --format megatron",
                 {split.first_layers, split.middle_layers, split.last_layers, vpp})) {
      return true;
    }
  }
  // b5bcd76c and 238fa995 configs: mixed_precision_reduce is Literal["float32"].
  if (!f.grad_fp32 &&
      sink.add("torchtitan.reduce_dtype",
               "torchtitan reduces gradients in float32 only (mixed_precision_reduce), while the "
               "plan is priced with bf16 gradients: set training.grad_reduce_in_fp32 true")) {
    return true;
  }
  // FSDP2 always prefetches the next all-gather and overlaps the reduce-scatter, and DDP
  // (replicate) overlaps its bucketed all-reduce (torchtitan/distributed/fsdp.py); what pplan
  // prices as exposed would be hidden. ZeRO-3 is priced hidden if either switch is on, ZeRO-2 and
  // the pipeline's deferred sync per switch (estimate.cpp).
  const bool per_switch = p.zero == 2 || defers_gradient_sync(s.training, p);
  const bool hidden = p.zero == 0 ? f.grad_overlap
                      : per_switch ? f.grad_overlap && f.param_overlap
                                   : f.grad_overlap || f.param_overlap;
  if (f.data_parallel && !hidden &&
      sink.add("torchtitan.overlap_always",
               "torchtitan always overlaps data-parallel communication with compute, while the "
               "plan is priced with it exposed: set training.overlap_grad_reduce and "
               "training.overlap_param_gather true")) {
    return true;
  }
  if (f.cuda_graphs) {
    // 238fa995's trainer has no CUDA-graph capture; b5bcd76c trainer.py _validate_cuda_graphs
    // refuses PP and the standard EP token dispatcher.
    if (toml && sink.add("torchtitan.no_cuda_graphs",
                         "TOML-era torchtitan has no CUDA-graph capture: set training.cuda_graphs "
                         "false or use --format torchtitan")) {
      return true;
    }
    if (!toml && (p.pp > 1 || (f.moe && p.ep > 1)) &&
        sink.add("torchtitan.cuda_graphs_pipeline",
                 "torchtitan's CUDA graphs do not support pipeline parallelism or the standard "
                 "expert-parallel dispatcher (trainer.py _validate_cuda_graphs): set "
                 "training.cuda_graphs false")) {
      return true;
    }
  }
  if (f.fp8_params &&
      sink.add("torchtitan.fp8_params",
               "the plan keeps the weights in FP8 and gathers them in FP8 (Megatron's "
               "--fp8-param-gather), which torchtitan's Float8 converter has no switch for: set "
               "training.fp8_param_gather false")) {
    return true;
  }
  if (lacks_switch(f, &TrainingSwitch::torchtitan_code, "torchtitan", sink)) return true;
  // b5bcd76c Float8LinearConverter recipe_name "rowwise" (scales from the tensor itself, per
  // row); 238fa995's default recipe is tensorwise: both current scaling. torchao has no delayed
  // scaling, and pplan does not write the MX converters.
  if (f.fp8 && f.fp8_recipe != Fp8Recipe::kCurrent &&
      sink.add("torchtitan.fp8_recipe",
               "torchtitan's Float8 training scales each tensor (or row) from its own values "
               "(current scaling), not the plan's recipe: set training.fp8_recipe \"current\"")) {
    return true;
  }
  // bf16 moments are b5bcd76c's optimizer.implementation "fused_opt_states_bf16"
  // (components/optimizer/optimizer.py); the TOML job config at 238fa995 has no such choice.
  if (toml && f.bf16_optimizer_state &&
      sink.add("torchtitan.optimizer_state_dtype",
               "torchtitan's TOML job config has no bf16 optimizer state (fused_opt_states_bf16 "
               "came with the config registry): use --format torchtitan or "
               "training.optimizer_state_dtype \"fp32\"")) {
    return true;
  }
  // FullAC checkpoints every layer; the layer-frequency option checkpoints every k-th layer, not
  // the first recompute_layers of each stage that pplan prices.
  if (f.recompute_layers > 0 &&
      sink.add("torchtitan.partial_recompute",
               "torchtitan recomputes every layer or every k-th one, not the first {} layers of "
               "each stage pplan prices: drop parallel.recompute_layers",
               {f.recompute_layers})) {
    return true;
  }
  return false;
}

/// DeepSpeed-MoE as Megatron-DeepSpeed 4efb479d builds it (megatron/model/transformer.py
/// ParallelTransformerLayer: deepspeed.moe.layer.MoE over ParallelMLP(config, moe=True)).
bool moe_rules_deepspeed(const Scenario& s, const LaunchFacts& f, ProblemSink& sink) {
  const ParallelConfig& p = f.parallel;
  const MoeSpec& moe = *s.model.moe;
  // DeepSpeed-MoE's layer (MoE.__init__) has one all-to-all dispatch and no overlap option.
  if (megatron_moe_dispatch(s.training) &&
      sink.add("deepspeed.moe_dispatch",
               "DeepSpeed-MoE dispatches with one all-to-all and has no flex dispatcher or EP "
               "overlap (deepspeed/moe/layer.py): use --format megatron or the default dispatcher")) {
    return true;
  }
  // Group-limited routing: DeepSpeed-MoE's top-k gating has none (sharded_moe.py topkgating).
  if (moe.groups > 0 &&
      sink.add("deepspeed.moe_dispatch",
               "DeepSpeed-MoE's top-k gating has no group-limited routing (sharded_moe.py), while "
               "the model routes within {} of {} groups: use --format megatron",
               {moe.group_top_k, moe.groups})) {
    return true;
  }
  // use_residual (--mlp-type residual) is PR-MoE: one dense MLP mixed in by a learned
  // coefficient, not always-on shared experts added to the routed ones.
  if (moe.shared_experts > 0 &&
      sink.add("deepspeed.moe_shared_experts",
               "DeepSpeed-MoE has no shared experts (--mlp-type residual is PR-MoE, a dense MLP "
               "mixed in by a learned coefficient), while the model has {}: use --format megatron",
               {moe.shared_experts})) {
    return true;
  }
  // Every MLP, dense or expert, is ParallelMLP at --ffn-hidden-size.
  if (moe.expert_ffn_hidden != s.model.ffn_hidden &&
      sink.add("deepspeed.moe_expert_width",
               "Megatron-DeepSpeed builds experts and dense MLPs at one --ffn-hidden-size, while "
               "the model's experts are {} wide and its dense MLP {}: use --format megatron",
               {moe.expert_ffn_hidden, s.model.ffn_hidden})) {
    return true;
  }
  // deepspeed/runtime/engine.py _configure_zero_optimizer: native MoE under ZeRO-3 raises.
  if (p.zero == 3 && sink.add("deepspeed.moe_zero3",
                              "DeepSpeed does not run MoE under ZeRO-3 (engine.py: \"Native "
                              "DeepSpeed MoE is not supported with ZeRO Stage 3\"): use zero 1 "
                              "or 2")) {
    return true;
  }
  // deepspeed/moe/sharded_moe.py MOELayer.forward: with TP the MoE layer drops the TP ranks'
  // duplicate tokens before the all-to-all and all-gathers them before the experts: not the
  // TP/SP expert split pplan prices.
  if (p.tp > 1 && sink.add("deepspeed.moe_tp",
                           "with TP {} DeepSpeed-MoE drops the TP ranks' duplicate tokens before "
                           "the all-to-all and all-gathers them before the experts "
                           "(sharded_moe.py), a different communication from the TP/SP experts "
                           "pplan prices: use tp 1",
                           {p.tp})) {
    return true;
  }
  return false;
}

/// FP8 in Megatron-DeepSpeed 4efb479d: only its Transformer Engine layers run it
/// (megatron/arguments.py: --fp8-hybrid needs --transformer-impl transformer_engine).
bool fp8_rules_deepspeed(const Scenario& s, const LaunchFacts& f, ProblemSink& sink) {
  const ParallelConfig& p = f.parallel;
  // pretrain_gpt.py: with the pipeline engine the model is GPTModelPipe, built from
  // ParallelTransformerLayerPipe (the local implementation): no Transformer Engine layers.
  if (p.pp > 1 && sink.add("deepspeed.fp8_pipeline",
                           "Megatron-DeepSpeed runs FP8 only in its Transformer Engine layers, "
                           "which its pipeline model (GPTModelPipe) does not use: use pp 1 or "
                           "precision bf16")) {
    return true;
  }
  if (f.moe && sink.add("deepspeed.fp8_moe",
                        "Megatron-DeepSpeed's Transformer Engine layers have no experts: use "
                        "precision bf16 for DeepSpeed-MoE")) {
    return true;
  }
  // megatron/model/transformer.py: te.pytorch.TransformerLayer is built with TE's own defaults
  // (LayerNorm, GELU) and asserts "Transformer_engine does not support GQA".
  const bool gpt_shape = s.model.activation == Activation::kGelu && s.model.learned_positions &&
                         s.model.kv_heads == s.model.heads && !s.model.mla;
  if (!gpt_shape &&
      sink.add("deepspeed.fp8_model",
               "Megatron-DeepSpeed's Transformer Engine layer is multi-head attention with "
               "LayerNorm and GELU (it asserts no GQA and passes no SwiGLU or RMSNorm), so "
               "{s} would not run as priced: use precision bf16 or --format megatron",
               {}, s.model.name)) {
    return true;
  }
  // TE's DelayedScaling with the HYBRID format (E4M3 forward, E5M2 gradients).
  if (f.fp8_recipe != Fp8Recipe::kDelayed &&
      sink.add("deepspeed.fp8_recipe",
               "Megatron-DeepSpeed scales FP8 with Transformer Engine's DelayedScaling only: "
               "set training.fp8_recipe \"delayed\"")) {
    return true;
  }
  return false;
}

/// deepspeed.*: DeepSpeed edaa7221 and Megatron-DeepSpeed 4efb479d.
bool deepspeed_rules(const Scenario& s, const LaunchFacts& f, const StageSplit& split,
                     ProblemSink& sink) {
  const ParallelConfig& p = f.parallel;
  if (framework_rule(LaunchFramework::kDeepSpeed, "deepspeed.priced_for_another_framework", s,
                     sink)) {
    return true;
  }
  if (p.offload_layers > 0 &&
      sink.add("deepspeed.no_activation_offload",
               "the plan offloads layers' activations to host memory (Megatron's "
               "--cpu-offloading-num-layers), which Megatron-DeepSpeed does not do: use "
               "parallel.offload_layers 0")) {
    return true;
  }
  if (recompute_modules(p, s.model.mla.has_value()) & ~unsigned(kRecomputeCoreAttn) &&
      sink.add("deepspeed.recompute_modules",
               "Megatron-DeepSpeed's selective recomputation reruns the attention core alone, while "
               "the plan reruns more modules (parallel.recompute_modules): use --format megatron or "
               "recompute_modules [\"core_attn\"]")) {
    return true;
  }
  // deepspeed/runtime/pipe/engine.py: the pipeline engine supports ZeRO 0 and 1 only.
  if (p.pp > 1 && p.zero >= 2 &&
      sink.add("deepspeed.zero_with_pipeline",
               "DeepSpeed's pipeline engine supports ZeRO stage 0 or 1 only: use zero 1, or pp = 1 for ZeRO-{}",
               {p.zero})) {
    return true;
  }
  // deepspeed/runtime/engine.py _do_optimizer_sanity_check: bf16 + pipeline without ZeRO runs
  // BF16_Optimizer, which partitions the fp32 optimizer state over DP (ZeRO-1 memory).
  if (p.pp > 1 && p.zero == 0 && f.data_parallel &&
      sink.add("deepspeed.zero0_pipeline",
               "with a pipeline and bf16, DeepSpeed runs BF16_Optimizer, which partitions the "
               "optimizer state over DP like ZeRO-1: use zero 1, which pplan prices as it runs")) {
    return true;
  }
  // engine.py _configure_zero_optimizer: "Pipeline parallelism does not support overlapped
  // communication, will be disabled."
  if (p.pp > 1 && f.grad_overlap &&
      sink.add("deepspeed.pipeline_no_overlap",
               "DeepSpeed's pipeline engine disables overlap_comm, while the plan is priced with "
               "the gradient reduction overlapped: set training.overlap_grad_reduce false or pp "
               "1")) {
    return true;
  }
  // Megatron-DeepSpeed megatron/model/gpt_model.py GPTModelPipe: partition_method
  // 'type:transformer' balances transformer layers; pplan's uneven splits are not passed on.
  if (p.pp > 1 && split.valid && split.uneven &&
      sink.add("deepspeed.pipeline_split",
               "DeepSpeed balances the transformer layers over the stages itself; pplan's "
               "{}/{}/{} split would not be the one that runs: use a layer count divisible by pp",
               {split.first_layers, split.middle_layers, split.last_layers})) {
    return true;
  }
  if (p.vpp > 1 && sink.add("deepspeed.no_interleaving",
                            "DeepSpeed's pipeline engine has no interleaved (virtual-stage) "
                            "schedule; use vpp = 1")) {
    return true;
  }
  if (p.cp > 1 && sink.add("deepspeed.no_ring_cp",
                           "Megatron-DeepSpeed has no ring context parallelism; "
                           "DeepSpeed-Ulysses (--ds-sequence-parallel-size) is a different "
                           "algorithm that pplan does not model: use cp = 1, or --format megatron")) {
    return true;
  }
  // Megatron-DeepSpeed's attention is multi-head or grouped-query (megatron/model/transformer.py
  // ParallelAttention); it has no multi-head latent attention.
  if (s.model.mla && sink.add("deepspeed.no_mla",
                              "Megatron-DeepSpeed has no multi-head latent attention (its "
                              "ParallelAttention is MHA/GQA): use --format megatron or nemo")) {
    return true;
  }
  if (f.moe && moe_rules_deepspeed(s, f, sink)) return true;
  if (f.fp8 && fp8_rules_deepspeed(s, f, sink)) return true;
  // runtime/config.py: bf16_master_weights_and_grads (with bf16_optimizer_states: the 6 bytes
  // per parameter priced) "is only supported with ZeRO Stage 1, 2, or 3", and keeps the
  // gradients in bf16 (docs/_pages/config-json.md).
  if (f.bf16_optimizer_state && p.zero == 0 &&
      sink.add("deepspeed.optimizer_state_needs_zero",
               "DeepSpeed keeps bf16 master weights and optimizer state "
               "(bf16_master_weights_and_grads, bf16_optimizer_states) only with ZeRO 1, 2 or 3: "
               "use zero >= 1 or training.optimizer_state_dtype \"fp32\"")) {
    return true;
  }
  if (f.bf16_optimizer_state && f.grad_fp32 &&
      sink.add("deepspeed.optimizer_state_fp32_grads",
               "DeepSpeed's bf16_master_weights_and_grads keeps the gradients in bf16, while the "
               "plan is priced with fp32 gradients: set training.grad_reduce_in_fp32 false")) {
    return true;
  }
  // engine.py allreduce_gradients: without ZeRO the gradients are all-reduced after the
  // backward pass (buffered_allreduce_fallback), not overlapped with it.
  if (p.zero == 0 && f.grad_overlap &&
      sink.add("deepspeed.zero0_no_overlap",
               "without ZeRO DeepSpeed all-reduces the gradients after the backward pass, while "
               "the plan is priced with the reduction overlapped: set "
               "training.overlap_grad_reduce false or use zero >= 1")) {
    return true;
  }
  // ZeRO-1/2 gather the updated weights after the optimizer step (stage_1_and_2.py); only
  // ZeRO-3 prefetches them behind compute.
  if ((p.zero == 1 || p.zero == 2) && f.param_overlap &&
      sink.add("deepspeed.no_param_gather_overlap",
               "DeepSpeed ZeRO-{} all-gathers the weights after the optimizer step, not behind "
               "the forward pass the plan is priced with: set training.overlap_param_gather false",
               {p.zero})) {
    return true;
  }
  // engine.py _do_optimizer_sanity_check: bf16 without ZeRO accumulates in the model dtype; fp32
  // accumulation ("unsupported mix of model_dtype and grad_accum_dtype") is refused.
  if (p.zero == 0 && p.pp == 1 && f.grad_fp32 &&
      sink.add("deepspeed.zero0_fp32_grads",
               "DeepSpeed without ZeRO keeps bf16 gradients (fp32 accumulation is an unsupported "
               "mix, engine.py), while the plan is priced with fp32 gradients: set "
               "training.grad_reduce_in_fp32 false or use zero >= 1")) {
    return true;
  }
  // Megatron-DeepSpeed 4efb479d megatron/model/gpt_model.py: "deepspeed's pipeline doesn't
  // support the block recompute method".
  if (f.recompute_layers > 0 && p.pp > 1 &&
      sink.add("deepspeed.partial_recompute_pipeline",
               "DeepSpeed's pipeline engine recomputes every layer (or every k-th: "
               "activation_checkpoint_interval), not the first {} layers of each stage: drop "
               "parallel.recompute_layers or use pp 1",
               {f.recompute_layers})) {
    return true;
  }
  if (f.tp_overlap &&
      sink.add("deepspeed.no_tp_overlap",
               "Megatron-DeepSpeed has no TP communication overlap (no Transformer Engine "
               "userbuffers), while the plan is priced with it: set training.tp_comm_overlap "
               "false")) {
    return true;
  }
  if (f.fp8_params &&
      sink.add("deepspeed.fp8_params",
               "the plan keeps the weights in FP8 (Megatron's --fp8-param-gather), which "
               "Megatron-DeepSpeed cannot: set training.fp8_param_gather false")) {
    return true;
  }
  if (lacks_switch(f, &TrainingSwitch::deepspeed_code, "Megatron-DeepSpeed", sink)) return true;
  // docs/_pages/config-json.md: enable_cuda_graph captures inference token generation only.
  if (f.cuda_graphs &&
      sink.add("deepspeed.no_cuda_graphs",
               "DeepSpeed training has no CUDA-graph capture (enable_cuda_graph is for "
               "generation): set training.cuda_graphs false")) {
    return true;
  }
  return false;
}

/// The model features a Megatron-family launch cannot express (megatron, slurm, env, nccl-tests,
/// nemo, deepspeed): Gemma's GeGLU on Megatron-LM's command line, Llama 4's chunked attention
/// anywhere in Megatron-Core, and what Megatron-DeepSpeed 4efb479d's layers lack.
bool model_feature_rules(LaunchFramework framework, const Scenario& s, ProblemSink& sink) {
  const ModelSpec& model = s.model;
  const bool nemo = framework == LaunchFramework::kNemo;
  const bool deepspeed = framework == LaunchFramework::kDeepSpeed;
  // Hybrid (Mamba-2) models train through Megatron's hybrid entry point (--hybrid-override-
  // pattern, pretrain_hybrid.py / pretrain_mamba.py) or NeMo's Nemotron-H recipes; pplan writes
  // pretrain_gpt.py scripts and NeMo's recipes for the presets only.
  if (!model.hybrid_pattern.empty() && !(nemo && detail::nemo_recipe(model).exact) &&
      sink.add("megatron.hybrid",
               "{s} is a hybrid Mamba-2 model: pplan launches it only through NeMo's Nemotron-H "
               "recipe (use --format nemo with the nemotron-h-56b preset)",
               {}, model.name)) {
    return true;
  }
  // Megatron-LM has the gated GeLU only as --quick-geglu (x·sigmoid(1.702x)); NeMo's config sets
  // activation_func itself.
  if (model.activation == Activation::kGeglu && !nemo &&
      sink.add("megatron.geglu",
               "Megatron-LM's command line has GeGLU only as --quick-geglu (x·sigmoid(1.702x)), "
               "not the GeLU of the model: use --format nemo, which sets activation_func")) {
    return true;
  }
  // Megatron-Core's local attention is a sliding window (window_size); Llama 4's chunked
  // attention has no equivalent.
  // NeMo's Llama 4 recipes run it (gpt/model/llama4_utils.py chunkify).
  if (model.local_attention && model.local_attention->chunked && !(nemo && detail::nemo_recipe(model).exact) &&
      sink.add("megatron.chunked_attention",
               "Megatron-Core's local attention is a sliding window (window_size), not the "
               "chunked attention of {s}: only NeMo's Llama 4 recipes run it (use --format nemo "
               "with the llama4-scout or llama4-maverick preset)",
               {}, model.name)) {
    return true;
  }
  if (!deepspeed) return false;
  // Megatron-DeepSpeed's ParallelAttention and transformer layer: no q/k norms, no attention
  // sinks, no sliding windows, no multi-token prediction (megatron/model/transformer.py).
  const char* missing = model.qk_norm             ? "query/key norms (qk_norm)"
                        : model.attention_sinks   ? "attention sinks"
                        : model.local_attention   ? "sliding-window attention (local_attention)"
                        : model.mtp_layers > 0    ? "multi-token prediction (mtp_layers)"
                        : model.linear_bias && !model.learned_positions ? "biases on a rotary model's linear layers (linear_bias)"
                        : model.activation == Activation::kClampedSwiglu ? "clamped SwiGLU"
                                                  : nullptr;
  if (missing != nullptr &&
      sink.add("deepspeed.model_feature",
               "Megatron-DeepSpeed's transformer layer has no {s}: use --format megatron or nemo",
               {}, missing)) {
    return true;
  }
  return false;
}

/// `split`: the split evaluate() prices for `p` (detail::priced_split).
/// *.schedule_unsupported: the pipeline schedule is one the framework does not run.
bool schedule_rule(LaunchFramework framework, const ParallelConfig& p, ProblemSink& sink) {
  if (p.pp <= 1 || framework_runs_schedule(framework, p.schedule, p.vpp)) return false;
  // DeepSpeed's missing interleaving has its own rule (deepspeed.no_interleaving).
  if (framework == LaunchFramework::kDeepSpeed && p.schedule == ScheduleKind::kInterleaved) return false;
  const bool titan =
      framework == LaunchFramework::kTorchtitan || framework == LaunchFramework::kTorchtitanToml;
  const char* code = titan ? "torchtitan.schedule_unsupported"
                     : framework == LaunchFramework::kDeepSpeed ? "deepspeed.schedule_unsupported"
                                                                : "megatron.schedule_unsupported";
  const char* runs = titan ? "1F1B, Interleaved1F1B, InterleavedZeroBubble (zb-h1 with vpp >= 2: a multi-stage "
                             "schedule needs two stages per rank or more), ZBVZeroBubble (zb-v) and DualPipeV"
                     : framework == LaunchFramework::kDeepSpeed ? "1F1B (its TrainSchedule) only"
                                                                : "1F1B and interleaved 1F1B only";
  return sink.add(code,
                  "the plan is priced with the {s}. Set parallel.schedule to one it runs (or leave it to the search)",
                  {}, std::string(schedule_name(p.schedule)) + " schedule; this framework runs " + runs);
}

void check(LaunchFramework framework, const Scenario& s, const ParallelConfig& p,
           const StageSplit& split, ProblemSink& sink) {
  const LaunchFacts f = detail::launch_facts(s, p);
  if (grid_rules(s, f, sink)) return;
  if (schedule_rule(framework, p, sink)) return;
  const bool titan =
      framework == LaunchFramework::kTorchtitan || framework == LaunchFramework::kTorchtitanToml;
  if (megatron_rules(s, f, split, titan, sink)) return;
  if (!titan && model_feature_rules(framework, s, sink)) return;
  if (titan) {
    torchtitan_rules(s, f, split, framework == LaunchFramework::kTorchtitanToml, sink);
  } else if (framework == LaunchFramework::kDeepSpeed) {
    deepspeed_rules(s, f, split, sink);
  } else if (!framework_rule(framework, "megatron.priced_for_another_framework", s, sink)) {
    if (megatron_core_rules(s, f, sink)) return;
    // A TransformerConfig field without a command-line flag: NeMo's recipes set it, pretrain_gpt.py cannot.
    if (framework == LaunchFramework::kMegatron) {
      for (const TrainingSwitch& t : kTrainingSwitches) {
        if (f.*t.on) {
          sink.add(t.megatron_code,
                   "Megatron-LM has no command-line flag for training.{s} (a TransformerConfig field it lists "
                   "under 'no CLI argument exists'): launch with --format nemo, which sets it, or set it false",
                   {}, t.field);
        }
      }
    }
  }
}

}  // namespace

namespace detail {

std::vector<LaunchProblem> grid_problems(const Scenario& scenario, const ParallelConfig& parallel) {
  std::vector<LaunchProblem> out;
  ProblemSink sink(&out);
  grid_rules(scenario, launch_facts(scenario, parallel), sink);
  return out;
}

}  // namespace detail

std::vector<LaunchProblem> framework_problems(LaunchFramework framework, const Scenario& scenario,
                                              const ParallelConfig& parallel) {
  std::vector<LaunchProblem> out;
  ProblemSink sink(&out);
  check(framework, scenario, parallel, detail::priced_split(scenario, parallel), sink);
  return out;
}

const char* first_framework_problem(LaunchFramework framework, const Scenario& scenario,
                                    const ParallelConfig& parallel) {
  ProblemSink sink(nullptr);
  check(framework, scenario, parallel, detail::priced_split(scenario, parallel), sink);
  return sink.first();
}

bool framework_runs_schedule(LaunchFramework framework, ScheduleKind schedule, int vpp) {
  switch (framework) {
    case LaunchFramework::kMegatron:
    case LaunchFramework::kNemo: return is_one_f_one_b(schedule);
    case LaunchFramework::kTorchtitan:
    case LaunchFramework::kTorchtitanToml:
      return schedule != ScheduleKind::kDualPipe && !(schedule == ScheduleKind::kZbH1 && vpp < 2);
    case LaunchFramework::kDeepSpeed: return schedule == ScheduleKind::kOneFOneB;
  }
  return false;
}

bool plan_independent_problem(std::string_view code) {
  // The scenario as a whole (hardware, model, switches, the framework it is priced for) or
  // what pplan's generators write, not what the framework runs: the launch says these, and a
  // search that avoided them would only answer "nothing fits".
  static constexpr std::string_view kCodes[] = {
      "launch.partial_node",                      // whole nodes: the cluster, not the plan
      "megatron.fp8_unsupported",                 // the GPU
      "megatron.fp8_recipe_hardware",             // the GPU
      "megatron.rope_theta_not_integer",          // the model's --rotary-base
      "megatron.priced_for_another_framework",    // the scenario's framework
      "torchtitan.priced_for_another_framework",  // the scenario's framework
      "deepspeed.priced_for_another_framework",   // the scenario's framework
      "torchtitan.no_model",                      // its model registry, not a plan
      "torchtitan.split_differs",                 // module_fqns_per_model_part can set any split
      // torchtitan runs CP, by all-gathering K/V rather than the ring pplan prices: a pricing
      // difference the launch states, not a layout the framework cannot run (Llama 3 used CP).
      "torchtitan.cp_allgather",
      // DeepSpeed balances the layers over the stages itself (BLOOM ran 70 layers on pp 12):
      // pplan's split is not the one that runs, which the launch states.
      "deepspeed.pipeline_split",
      "torchtitan.reduce_dtype",                  // a training switch
      "torchtitan.fp8_recipe",                    // a training switch
      "torchtitan.optimizer_state_dtype",         // a training switch
      "deepspeed.optimizer_state_fp32_grads",     // the training switches
      "torchtitan.no_cuda_graphs",                // a training switch
      "deepspeed.no_mla",                         // the model
      "deepspeed.moe_shared_experts",             // the model
      "deepspeed.moe_expert_width",               // the model
      "deepspeed.fp8_moe",                        // the model and the precision
      "deepspeed.fp8_model",                      // the model
      "deepspeed.fp8_recipe",                     // a training switch
      "deepspeed.model_feature",                  // the model
      "megatron.geglu",                           // the model
      "megatron.hybrid",                          // the model
      "megatron.chunked_attention",               // the model
      "deepspeed.no_cuda_graphs",                 // a training switch
      "torchtitan.activation_fp8_store",          // a training switch
      "megatron.activation_fp8_store_no_flag",    // a training switch
      "deepspeed.activation_fp8_store",           // a training switch
      "torchtitan.fp8_attention",                 // a training switch
      "megatron.fp8_attention_no_flag",           // a training switch
      "deepspeed.fp8_attention",                  // a training switch
      // A pinned schedule is priced as asked (DualPipe is DeepSeek's own framework's); the
      // search tries only the schedules the framework runs.
      "megatron.schedule_unsupported",
      "torchtitan.schedule_unsupported",
      "deepspeed.schedule_unsupported",
  };
  return std::find(std::begin(kCodes), std::end(kCodes), code) != std::end(kCodes);
}

const char* first_framework_problem(const Scenario& scenario, const ParallelConfig& parallel) {
  return first_framework_problem(scenario, parallel, detail::priced_split(scenario, parallel));
}

const char* first_framework_problem(const Scenario& scenario, const ParallelConfig& parallel,
                                    const StageSplit& priced_split) {
  ProblemSink sink(nullptr, /*plan_only=*/true);
  check(launch_framework_of(scenario.training.framework), scenario, parallel, priced_split, sink);
  return sink.first();
}

}  // namespace pplan
