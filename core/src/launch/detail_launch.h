#pragma once
// Private helpers shared by the launch generators (launch*.cpp). Every number a launch
// format prints (world size, nodes, micro-batches, iterations) comes from LaunchFacts, so
// the formats cannot disagree with each other.

#include <string>
#include <vector>

#include "pplan/model/estimate.h"
#include "pplan/specs.h"

namespace pplan::detail {

/// A reason a plan cannot be launched as generated: stable dotted code + human message.
struct LaunchProblem {
  std::string code;
  std::string message;
};

/// The quantities every launch format derives from one plan.
struct LaunchFacts {
  ParallelConfig parallel;
  long long world_size = 0;    ///< tp·pp·dp·cp
  int gpus_per_node = 0;       ///< the cluster's NVLink domain
  int nproc_per_node = 0;      ///< processes per node = min(world, gpus_per_node)
  long long nodes = 0;         ///< world / nproc_per_node
  int global_batch = 0;        ///< sequences per step
  long long microbatches = 0;  ///< per pipeline per step: global / (micro_batch·dp)
  int seq_len = 0;
  long long tokens_per_step = 0;
  int expert_dp = 1;           ///< dp·cp/ep
  long long train_iters = 0;   ///< ceil(token_budget / tokens_per_step); 0 = no budget
  bool megatron_fsdp = false;  ///< ZeRO-2/3 map to Megatron-FSDP
  bool fp8 = false;
  bool moe = false;
  std::string architecture;    ///< GpuSpec::architecture
};

/// Derives the facts (no checks: see grid_problems / megatron_problems).
LaunchFacts launch_facts(const Scenario& scenario, const Estimate& plan);

/// Problems that make every launch impossible: the grid does not match the cluster, nodes
/// would run different process counts, or the expert grid does not tile the world.
std::vector<LaunchProblem> grid_problems(const Scenario& scenario, const LaunchFacts& facts);

/// Everything Megatron-LM validates (Megatron-LM d98e8a64 validate_args) and the FP8 hardware check
/// Transformer Engine makes; includes grid_problems.
std::vector<LaunchProblem> megatron_problems(const Scenario& scenario, const Estimate& plan,
                                             const LaunchFacts& facts);

/// One variable of the environment block.
struct EnvVar {
  enum class Kind { kExport, kUnset, kSuggested };  ///< kSuggested = commented-out placeholder
  std::string name;
  std::string value;
  std::string why;  ///< one line
  Kind kind = Kind::kExport;
};

/// The CUDA / NCCL / PyTorch environment a Megatron-Core run of this plan needs
/// (Megatron-LM d98e8a64 validate_args, §2).
std::vector<EnvVar> environment(const Scenario& scenario, const LaunchFacts& facts);

/// environment() as shell lines, each with its one-line reason.
std::string environment_block(const Scenario& scenario, const LaunchFacts& facts);

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

/// The pretrain_gpt.py arguments of the plan, spelled as megatron-flags.tsv spells them.
std::vector<FlagGroup> megatron_flags(const Scenario& scenario, const Estimate& plan,
                                      const LaunchFacts& facts);

/// `NAME=(\n    --flag value  # comment\n)` for every group.
std::string render_flag_arrays(const std::vector<FlagGroup>& groups);

/// `"${NAME[@]}"` references, one per continuation line, indented by `indent`.
std::string array_references(const std::vector<FlagGroup>& groups, const std::string& indent);

/// The comment header every format starts with: what, model, cluster, plan, batch.
std::string plan_header(const Scenario& scenario, const Estimate& plan, const LaunchFacts& facts,
                        const std::string& title);

/// The site-specific placeholder variables of the Megatron scripts.
std::string megatron_placeholders(const Scenario& scenario, const LaunchFacts& facts);

/// `--format` generators (text). Each assumes the problems its caller checked are empty.
std::string megatron_script(const Scenario& scenario, const Estimate& plan, const LaunchFacts& facts);
std::string slurm_script(const Scenario& scenario, const Estimate& plan, const LaunchFacts& facts);
std::string env_script(const Scenario& scenario, const Estimate& plan, const LaunchFacts& facts);
std::string torchtitan_script(const Scenario& scenario, const Estimate& plan, const LaunchFacts& facts);
std::string torchtitan_toml(const Scenario& scenario, const Estimate& plan, const LaunchFacts& facts);
std::string deepspeed_script(const Scenario& scenario, const Estimate& plan, const LaunchFacts& facts);
std::string nemo_script(const Scenario& scenario, const Estimate& plan, const LaunchFacts& facts);
std::string nccl_tests_script(const Scenario& scenario, const Estimate& plan, const LaunchFacts& facts);

/// Problems specific to Megatron-DeepSpeed / DeepSpeed (on top of megatron_problems).
std::vector<LaunchProblem> deepspeed_problems(const Scenario& scenario, const LaunchFacts& facts);

/// Problems specific to torchtitan (on top of megatron_problems).
std::vector<LaunchProblem> torchtitan_problems(const Estimate& plan, const LaunchFacts& facts,
                                               bool toml_era);

/// Decimal integer text.
std::string num(long long value);

}  // namespace pplan::detail
