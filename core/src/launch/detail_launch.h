#pragma once
// Private helpers shared by the launch generators (launch*.cpp) and the framework rules
// (framework_rules.cpp). Every number a launch format prints (world size, nodes,
// micro-batches, iterations) comes from LaunchFacts, and every choice a format makes for a
// framework (registry entry, recipe, pipeline split, data-parallel mapping) from the helpers
// below, so a generator and the rule that admits its plan cannot disagree.

#include <string>
#include <string_view>
#include <vector>

#include "pplan/launch/framework_rules.h"
#include "pplan/model/estimate.h"
#include "pplan/model/pipeline.h"
#include "pplan/specs.h"

namespace pplan::detail {

/// The quantities every launch format derives from one plan. No strings: computing them
/// allocates nothing (first_framework_problem runs them for every candidate of the search).
struct LaunchFacts {
  ParallelConfig parallel;
  long long world_size = 0;    ///< tp·pp·dp·cp
  int gpus_per_node = 0;       ///< GPUs per host (a SLURM node, a GB200 compute tray)
  int nproc_per_node = 0;      ///< processes per node = min(world, gpus_per_node)
  long long nodes = 0;         ///< world / nproc_per_node
  int nvlink_domain_gpus = 0;  ///< GPUs per NVLink domain (72 on GB200 NVL72, 8 on DGX H100)
  long long nodes_per_domain = 1;  ///< hosts per NVLink domain (18 trays per NVL72 rack)
  /// NVLink spans hosts in this job (multi-node NVLink: the domain is larger than a host and
  /// the job has more than one host), so NCCL must run MNNVL and SLURM keep domains whole.
  bool mnnvl = false;
  bool rail_optimized = true;  ///< cluster.network.rail_optimized: NCCL keeps rings on a rail
  int global_batch = 0;        ///< sequences per step
  long long microbatches = 0;  ///< per pipeline per step: global / (micro_batch·dp)
  int seq_len = 0;
  long long tokens_per_step = 0;
  int expert_dp = 1;           ///< dp·cp/ep
  long long train_iters = 0;   ///< ceil(token_budget / tokens_per_step); 0 = no budget
  bool data_parallel = false;  ///< dp·cp > 1: ZeRO shards over something
  bool megatron_fsdp = false;  ///< ZeRO-2/3 map to Megatron-FSDP
  bool fp8 = false;
  bool moe = false;
  bool ampere = false;  ///< GpuSpec::architecture, as the launch rules need it
  bool blackwell = false;

  // The training switches as the step-time model prices them (model/framework.h; compute.cpp
  // applies TP overlap only with sequence parallelism; estimate.cpp's DP overlap): every format
  // emits these, or its framework's rule refuses the plan.
  bool sequence_parallel = false;  ///< SP with tp > 1
  bool tp_overlap = false;         ///< TP collectives overlapped with GEMMs (tp_comm_overlap, SP)
  bool grad_overlap = false;       ///< DP gradient reduction overlapped (dp·cp > 1)
  bool param_overlap = false;      ///< DP weight all-gather overlapped (ZeRO >= 1, dp·cp > 1)
  bool grad_fp32 = true;           ///< gradients accumulated and reduced in fp32
  bool bf16_optimizer_state = false;  ///< training.optimizer_state_dtype "bf16" (memory.h)
  bool cuda_graphs = false;
  bool flash_attention = true;
  Fp8Recipe fp8_recipe = Fp8Recipe::kDelayed;
  int recompute_layers = 0;  ///< > 0: full recompute of that many layers per model chunk
};

LaunchFacts launch_facts(const Scenario& scenario, const ParallelConfig& parallel);

/// The pipeline split pplan prices for `parallel` (what evaluate() computes).
StageSplit priced_split(const Scenario& scenario, const ParallelConfig& parallel);

/// Grid problems only (launch.*): what layout, env and nccl-tests need.
std::vector<LaunchProblem> grid_problems(const Scenario& scenario, const ParallelConfig& parallel);

// ---- torchtitan ----------------------------------------------------------------------

/// torchtitan's registry entry for a model, or `known == false` when torchtitan has no config
/// of this shape (torchtitan b5bcd76c torchtitan/models/{llama3,deepseek_v3}/__init__.py).
struct TitanModel {
  bool known = false;
  const char* module = "";    ///< torchtitan.models.<module>
  const char* function = "";  ///< config_registry.<function>
  const char* flavor = "";    ///< model_registry flavor = TOML [model] flavor
};
TitanModel titan_model(const ModelSpec& model);

/// pplan's ZeRO stage as torchtitan's data parallelism (FSDP2 / HSDP replicate).
struct TitanDp {
  int replicate = 1;
  int shard = 1;
  const char* reshard = "default";  ///< fsdp_reshard_after_forward
  const char* note = "";
};
TitanDp titan_dp(const ParallelConfig& parallel);

/// torchtitan's pipeline keys for pplan's split: layers_per_stage k and the first/last
/// stage's "less" layers a and b (torchtitan pipeline_parallel.py splits (L + a + b) effective
/// layers into ceil((L + a + b) / k) stages).
struct TitanPipeline {
  const char* schedule = "1F1B";
  int layers_per_stage = 0;
  int first_less = 0;
  int last_less = 0;
};
TitanPipeline titan_pipeline(const StageSplit& split, const ParallelConfig& parallel);

// ---- NeMo ----------------------------------------------------------------------------

/// The NeMo 2.0 recipe a model starts from (NeMo 8cfedd72 nemo/collections/llm/recipes/*.py).
/// `exact` when the model has the recipe's architecture; otherwise pplan overrides every
/// architecture field on a base recipe of the same family.
struct NemoRecipe {
  const char* name = "";
  bool exact = false;
};
NemoRecipe nemo_recipe(const ModelSpec& model);

// ---- text that reaches a script ------------------------------------------------------

/// `text` made safe inside a comment of any format (bash, Python, TOML) and on a terminal:
/// control characters (C0, DEL, C1), line and paragraph separators, bidirectional controls and
/// invalid UTF-8 become '?'. Nothing in the result can end the comment.
std::string comment_text(std::string_view text);

/// `text` filtered to [A-Za-z0-9._-] (job names, file names); "model" when nothing is left.
std::string safe_id(std::string_view text);

/// A single-quoted bash word: 'text' with every ' written as '\''.
std::string bash_quote(std::string_view text);

/// A double-quoted Python string literal: printable ASCII as is, everything else escaped.
std::string python_str(std::string_view text);

/// A TOML basic string: "text" with \, " and every non-printable character escaped.
std::string toml_str(std::string_view text);

// ---- shared pieces of the scripts -----------------------------------------------------

/// One variable of the environment block.
struct EnvVar {
  enum class Kind { kExport, kUnset, kSuggested };  ///< kSuggested = commented-out placeholder
  const char* name = "";
  std::string value;
  const char* why = "";  ///< one line
  Kind kind = Kind::kExport;
};

/// The CUDA / NCCL / PyTorch environment a Megatron-Core run of this plan needs
/// (Megatron-LM d98e8a64 validate_args, §2).
std::vector<EnvVar> environment(const LaunchFacts& facts);

/// environment() as shell lines, each with its one-line reason.
std::string environment_block(const LaunchFacts& facts);

/// One command-line flag; empty value = a switch. `comment` is printed after it.
struct Flag {
  std::string name;
  std::string value;
  std::string comment;
};

/// Flags grouped into one bash array (Megatron's own example-script style).
struct FlagGroup {
  std::string array_name;
  std::vector<Flag> flags;
};

/// GPT-2 BPE (50,257 tokens, Radford et al. 2019) for GPT-style models (learned positions), as
/// Megatron's own GPT examples do, when Megatron can pad it to the vocabulary pplan prices at
/// `tp`; otherwise a HuggingFace tokenizer of the model's vocabulary.
bool gpt2_tokenizer(const ModelSpec& model, int tp);

/// --make-vocab-size-divisible-by that makes Megatron's padding of the tokenizer's vocabulary
/// (vocab_size_with_padding: a multiple of this x TP) land on the vocabulary pplan prices.
long long megatron_vocab_divisor(const ModelSpec& model, int tp);

/// The pretrain_gpt.py arguments of the plan, spelled as megatron-flags.tsv spells them.
std::vector<FlagGroup> megatron_flags(const Scenario& scenario, const Estimate& plan,
                                      const LaunchFacts& facts);

/// `NAME=(\n    --flag value  # comment\n)` for every group.
std::string render_flag_arrays(const std::vector<FlagGroup>& groups);

/// `"${NAME[@]}"` references, one per continuation line, indented by `indent`.
std::string array_references(const std::vector<FlagGroup>& groups, const std::string& indent);

/// `${NAME[@]+"${NAME[@]}"}`: an array that may be empty, expanded safely under `set -u` also
/// by bash < 4.4, which treats "${NAME[@]}" of an empty array as unbound.
std::string maybe_empty_array(const std::string& name);

/// The comment header every format starts with: what, model, cluster, plan, batch.
std::string plan_header(const Scenario& scenario, const Estimate& plan, const LaunchFacts& facts,
                        const std::string& title);

/// `#SBATCH --segment=N` (with its newline) when the job's hosts must keep NVLink domains
/// whole, else "" (layout.h; Slurm >= 24.05 topology/block).
std::string slurm_segment_line(const LaunchFacts& facts);

/// Comment lines saying how the job's hosts map onto NVLink domains, or "" on one-host domains.
std::string domain_note(const LaunchFacts& facts);

/// The site-specific placeholder variables of the Megatron scripts.
std::string megatron_placeholders(const Scenario& scenario, const LaunchFacts& facts);

/// `--format` generators (text). Each assumes framework_problems() found nothing.
std::string megatron_script(const Scenario& scenario, const Estimate& plan,
                            const LaunchFacts& facts);
std::string slurm_script(const Scenario& scenario, const Estimate& plan, const LaunchFacts& facts);
std::string env_script(const Scenario& scenario, const Estimate& plan, const LaunchFacts& facts);
std::string torchtitan_script(const Scenario& scenario, const Estimate& plan,
                              const LaunchFacts& facts);
std::string torchtitan_toml(const Scenario& scenario, const Estimate& plan,
                            const LaunchFacts& facts);
std::string deepspeed_script(const Scenario& scenario, const Estimate& plan,
                             const LaunchFacts& facts);
std::string nemo_script(const Scenario& scenario, const Estimate& plan, const LaunchFacts& facts);
std::string nccl_tests_script(const Scenario& scenario, const Estimate& plan,
                              const LaunchFacts& facts);

/// Decimal integer text.
std::string num(long long value);

}  // namespace pplan::detail
