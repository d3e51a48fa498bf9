#pragma once
/// Which parallel configurations each training framework can run as pplan prices them: the one
/// place for every rule of the form "framework F cannot run this configuration". The launch
/// generators refuse exactly what these functions report, and the search may call
/// first_framework_problem() for every candidate to keep to what a framework can launch.

#include <string>
#include <vector>

#include "pplan/specs.h"

namespace pplan {

/// The frameworks pplan writes launch configurations for. kTorchtitan is the current config
/// registry (torchtitan b5bcd76c); kTorchtitanToml the TOML job config it replaced on
/// 2026-02-23 (PR #2386; rules read at 238fa995, its parent).
enum class LaunchFramework { kMegatron, kTorchtitan, kTorchtitanToml, kDeepSpeed, kNemo };

/// A reason a plan cannot be launched as priced: stable dotted code + human message.
struct LaunchProblem {
  std::string code;
  std::string message;
};

/// "megatron", "torchtitan", "torchtitan-toml", "deepspeed", "nemo".
const char* framework_name(LaunchFramework framework);

/**
 * Every reason `framework` cannot run `parallel` for `scenario` the way pplan prices it, in a
 * fixed order: the grid (launch.*), Megatron-LM's own validation (megatron.*: for Megatron-LM,
 * NeMo, which runs Megatron-Core, and Megatron-DeepSpeed; the general ones for torchtitan too),
 * then the framework's own (torchtitan.*, deepspeed.*). NeMo has none of its own: every model
 * runs from a recipe whose architecture, MoE block and plan pplan overrides in full.
 * Empty = the generated configuration runs the priced plan.
 * Each rule cites the framework file and commit it comes from (framework_rules.cpp).
 *
 * Codes: launch.world_size_mismatch, launch.partial_node, launch.ep_without_moe,
 * launch.ep_not_divisible, launch.expert_grid; megatron.batch_not_divisible,
 * megatron.heads_not_divisible, megatron.query_groups, megatron.layers_not_divisible,
 * megatron.vpp_needs_pp, megatron.vpp_not_divisible, megatron.vpp_microbatches,
 * megatron.cp_seq_not_divisible, megatron.fp8_unsupported, megatron.rope_theta_not_integer;
 * torchtitan.no_model, torchtitan.tp_kv_heads, torchtitan.tp_without_sp, torchtitan.no_expert_tp,
 * torchtitan.ep_not_divisible, torchtitan.selective_recompute, torchtitan.no_zero1,
 * torchtitan.zero0_sharded, torchtitan.cp_allgather, torchtitan.tokens_not_divisible,
 * torchtitan.split_differs; deepspeed.zero_with_pipeline, deepspeed.zero0_pipeline,
 * deepspeed.pipeline_no_overlap, deepspeed.pipeline_split, deepspeed.no_interleaving,
 * deepspeed.no_ring_cp, deepspeed.moe_not_generated, deepspeed.no_fp8.
 */
std::vector<LaunchProblem> framework_problems(LaunchFramework framework, const Scenario& scenario,
                                              const ParallelConfig& parallel);

/**
 * The code of the first problem framework_problems() would report, or nullptr when there is
 * none. Runs the same rules without building messages: it never disagrees with
 * framework_problems() and allocates nothing (except when the layer split itself is invalid,
 * which split_layers() explains in a string; the search drops such splits before).
 */
const char* first_framework_problem(LaunchFramework framework, const Scenario& scenario,
                                    const ParallelConfig& parallel);

}  // namespace pplan
