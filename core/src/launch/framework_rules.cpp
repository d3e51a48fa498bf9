// Every rule of the form "framework F cannot run this parallel configuration as pplan prices
// it", each with the framework file and commit it comes from. One rule runner serves both
// framework_problems() (with messages) and first_framework_problem() (the first code only, no
// allocation), so the two cannot disagree; the launch generators refuse what the runner finds.
#include "pplan/launch/framework_rules.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <string_view>

#include "detail_launch.h"

namespace pplan {

namespace detail {

LaunchFacts launch_facts(const Scenario& scenario, const ParallelConfig& p) {
  LaunchFacts f;
  f.parallel = p;
  f.world_size = 1LL * p.tp * p.pp * p.dp * p.cp;
  f.gpus_per_node = std::max(1, scenario.cluster.gpus_per_node);
  f.nproc_per_node = static_cast<int>(std::min<long long>(f.world_size, f.gpus_per_node));
  f.nodes = std::max(1LL, f.world_size / std::max(1, f.nproc_per_node));
  f.global_batch = scenario.training.global_batch;
  const long long per_step = 1LL * p.micro_batch * p.dp;
  f.microbatches = per_step > 0 ? f.global_batch / per_step : 0;
  f.seq_len = scenario.training.seq_len;
  f.tokens_per_step = 1LL * f.global_batch * f.seq_len;
  f.expert_dp = std::max(1, p.dp * p.cp / std::max(1, p.ep));
  if (scenario.training.token_budget > 0 && f.tokens_per_step > 0) {
    const double steps = scenario.training.token_budget / double(f.tokens_per_step);
    f.train_iters = static_cast<long long>(steps);
    if (double(f.train_iters) < steps) ++f.train_iters;
  }
  f.data_parallel = 1LL * p.dp * p.cp > 1;
  f.megatron_fsdp = p.zero >= 2;
  f.fp8 = scenario.training.precision == Precision::kFp8;
  f.moe = scenario.model.moe.has_value() && scenario.model.moe->experts > 0;
  f.ampere = scenario.cluster.gpu.architecture == "ampere";
  f.blackwell = scenario.cluster.gpu.architecture == "blackwell";
  return f;
}

StageSplit priced_split(const Scenario& scenario, const ParallelConfig& p) {
  // The same call evaluate() makes (core/src/model/estimate.cpp).
  return split_layers(scenario.model.layers, p.pp, p.first_stage_layers, p.last_stage_layers);
}

bool fp8_param_gather(const LaunchFacts& f) {
  // --fp8-param-gather needs the distributed optimizer or FSDP (Megatron-LM d98e8a64
  // arguments.py validate_args); pplan uses it with ZeRO-1 and the delayed recipe (Megatron's
  // examples/llama/train_llama3_8b_h100_fp8.sh), not with Blackwell's MXFP8.
  return f.fp8 && f.parallel.zero == 1 && !f.blackwell;
}

namespace {

/// A model's shape, to tell a preset from a custom model that borrowed its id.
struct Shape {
  int layers, hidden, heads, kv_heads, ffn, vocab;
  double rope_theta;
  int experts, top_k, shared, expert_ffn, dense_layers;
};

bool has_shape(const ModelSpec& m, const Shape& s) {
  const MoeSpec moe = m.moe.value_or(MoeSpec{});
  return m.layers == s.layers && m.hidden == s.hidden && m.heads == s.heads &&
         m.kv_heads == s.kv_heads && m.ffn_hidden == s.ffn && m.vocab == s.vocab &&
         m.activation == Activation::kSwiglu && !m.learned_positions && !m.tied_embeddings &&
         !m.dropout && m.rope_theta == s.rope_theta && moe.experts == s.experts &&
         moe.top_k == s.top_k && moe.shared_experts == s.shared &&
         moe.expert_ffn_hidden == s.expert_ffn && moe.dense_layers == s.dense_layers;
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
  t.schedule = p.vpp > 1 ? "Interleaved1F1B" : "1F1B";
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
  };
  for (const Entry& e : entries) {
    if (m.id == e.id && has_shape(m, e.shape)) return {e.recipe, true};
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

using detail::LaunchFacts;
using detail::num;

/// Collects problems, or only the first code: messages are built only when collecting, from a
/// pattern in which each "{}" is the next number and "{s}" the text (made safe for comments).
class ProblemSink {
 public:
  explicit ProblemSink(std::vector<LaunchProblem>* all) : all_(all) {}
  /// Records a problem; true when the caller should stop (first-code mode).
  bool add(const char* code, const char* pattern, std::initializer_list<long long> numbers = {},
           std::string_view text = {}) {
    if (first_ == nullptr) first_ = code;
    if (all_ == nullptr) return true;
    std::string message;
    const long long* next = numbers.begin();
    for (const char* c = pattern; *c != '\0'; ++c) {
      if (c[0] == '{' && c[1] == '}' && next != numbers.end()) {
        message += num(*next++);
        ++c;
      } else if (c[0] == '{' && c[1] == 's' && c[2] == '}') {
        message += detail::comment_text(text);
        c += 2;
      } else {
        message += *c;
      }
    }
    all_->push_back({code, message});
    return false;
  }
  const char* first() const { return first_; }

 private:
  std::vector<LaunchProblem>* all_;
  const char* first_ = nullptr;
};

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
    if ((1LL * p.dp * p.cp) % p.ep != 0 &&
        sink.add("launch.expert_grid",
                 "the expert grid expert_tp*ep*pp = {} does not divide the world of {} (ep must "
                 "divide dp*cp; Megatron-LM d98e8a64 parallel_state.initialize_model_parallel)",
                 {1LL * p.tp * p.ep * p.pp, f.world_size})) {
      return true;
    }
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
    if (p.pp > 1 && (f.microbatches < p.pp || f.microbatches % p.pp != 0) &&
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
  // FP8 needs Hopper or newer tensor cores (Transformer Engine and torchao refuse otherwise).
  if (f.fp8 && (s.cluster.gpu.fp8_flops_per_s <= 0 || f.ampere) &&
      sink.add("megatron.fp8_unsupported",
               "{s} has no FP8 tensor cores: FP8 training needs Hopper or newer; use precision "
               "bf16",
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

/// torchtitan.*: current config registry (b5bcd76c) or the TOML job config (238fa995).
bool torchtitan_rules(const Scenario& s, const LaunchFacts& f, const StageSplit& split, bool toml,
                      ProblemSink& sink) {
  const ParallelConfig& p = f.parallel;
  const ModelSpec& model = s.model;
  if (!detail::titan_model(model).known &&
      sink.add("torchtitan.no_model",
               "torchtitan has no config for {s} (its registry has Llama 3 8B/70B/405B and "
               "DeepSeek-V3 671B of the published shapes); a stand-in would train another "
               "architecture: register the model in torchtitan or use --format megatron",
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
  if (f.moe && !toml && p.tp > 1 &&
      sink.add("torchtitan.no_expert_tp",
               "current torchtitan has no expert tensor parallelism: EP borrows the TP ranks "
               "(b5bcd76c torchtitan/config/configs.py expert_parallel_degree), while pplan "
               "prices experts split over TP = {}; use tp 1, --format torchtitan-toml "
               "(expert_tensor_parallel_degree) or --format megatron",
               {p.tp})) {
    return true;
  }
  const detail::TitanDp dp = detail::titan_dp(p);
  // b5bcd76c parallel_dims.py: ep divides dp_shard*cp*tp (EP borrows FSDP and TP ranks);
  // 238fa995 parallel_dims.py with ETP = TP: efsdp = dp_shard*cp*tp/(tp*ep).
  const long long ep_region = 1LL * dp.shard * p.cp * (toml ? 1 : p.tp);
  if (f.moe && p.ep > 1 && ep_region % p.ep != 0 &&
      sink.add("torchtitan.ep_not_divisible",
               toml ? "torchtitan needs expert_parallel_degree {} to divide dp_shard*cp = {} "
                      "(parallel_dims.py)"
                    : "torchtitan needs expert_parallel_degree {} to divide dp_shard*cp*tp = {} "
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
  // first and last stage; stage s runs on rank s % pp. Must give pplan's layers per rank.
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
        const int stage = rank + v * p.pp;
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
  return false;
}

/// deepspeed.*: DeepSpeed edaa7221 and Megatron-DeepSpeed 4efb479d.
bool deepspeed_rules(const Scenario& s, const LaunchFacts& f, const StageSplit& split,
                     ProblemSink& sink) {
  const ParallelConfig& p = f.parallel;
  // deepspeed/runtime/pipe/engine.py: the pipeline engine supports ZeRO 0 and 1 only.
  if (p.pp > 1 && p.zero >= 2 &&
      sink.add("deepspeed.zero_with_pipeline",
               "DeepSpeed's pipeline engine supports ZeRO stage 0 or 1 only; ZeRO-{} needs pp = 1",
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
  if (p.pp > 1 && s.training.overlap_grad_reduce && f.data_parallel &&
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
                           "algorithm that pplan does not model")) {
    return true;
  }
  if (f.moe && sink.add("deepspeed.moe_not_generated",
                        "pplan does not generate Megatron-DeepSpeed MoE flags (--num-experts "
                        "takes a per-layer list there); use --format megatron")) {
    return true;
  }
  // docs/_pages/config-json.md: ds_config.json has bf16/fp16 switches but no FP8 training.
  if (f.fp8 && sink.add("deepspeed.no_fp8",
                        "DeepSpeed's config has no FP8 training switch, so the run would be "
                        "bf16: use precision bf16 or --format megatron")) {
    return true;
  }
  return false;
}

void check(LaunchFramework framework, const Scenario& s, const ParallelConfig& p,
           ProblemSink& sink) {
  const LaunchFacts f = detail::launch_facts(s, p);
  if (grid_rules(s, f, sink)) return;
  const StageSplit split = detail::priced_split(s, p);
  const bool titan =
      framework == LaunchFramework::kTorchtitan || framework == LaunchFramework::kTorchtitanToml;
  if (megatron_rules(s, f, split, titan, sink)) return;
  if (titan) {
    torchtitan_rules(s, f, split, framework == LaunchFramework::kTorchtitanToml, sink);
  } else if (framework == LaunchFramework::kDeepSpeed) {
    deepspeed_rules(s, f, split, sink);
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
  check(framework, scenario, parallel, sink);
  return out;
}

const char* first_framework_problem(LaunchFramework framework, const Scenario& scenario,
                                    const ParallelConfig& parallel) {
  ProblemSink sink(nullptr);
  check(framework, scenario, parallel, sink);
  return sink.first();
}

}  // namespace pplan
