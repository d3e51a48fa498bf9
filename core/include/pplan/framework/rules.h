#pragma once
/// Which parallel configurations each training framework can run as pplan prices them: the one
/// place for every rule of the form "framework F cannot run this configuration". The launch
/// generators refuse exactly what these functions report, and the search may call
/// first_framework_problem() for every candidate to keep to what a framework can launch.

#include <string>
#include <string_view>
#include <vector>

#include "pplan/specs.h"
#include "pplan/stage_split.h"

namespace pplan {

/// The frameworks pplan writes launch configurations for. kTorchtitan is the current config
/// registry (torchtitan b5bcd76c); kTorchtitanToml the TOML job config it replaced on
/// 2026-02-23 (PR #2386; rules read at 238fa995, its parent).
enum class LaunchFramework { kMegatron, kTorchtitan, kTorchtitanToml, kDeepSpeed, kNemo };

/// A reason a plan cannot be launched as priced: stable dotted code + human message + the
/// framework's source line that states the rule ("Megatron-LM d98e8a64
/// megatron/training/arguments.py:432"), or "pplan: ..." for pplan's own rules.
struct LaunchProblem {
  std::string code;
  std::string message;
  std::string source;
};

/// The source of a problem code (see LaunchProblem::source); empty for an unknown code.
std::string_view problem_source(std::string_view code);

/// "megatron", "torchtitan", "torchtitan-toml", "deepspeed", "nemo".
const char* framework_name(LaunchFramework framework);

/**
 * The rules the search keeps to for a scenario's training.framework (specs.h): megatron-core ->
 * kNemo, because its switch defaults are those of NVIDIA's NeMo / Megatron-Bridge recipes
 * (framework/framework.h [1]) and NeMo is where those recipes run; megatron-lm -> kMegatron
 * (pretrain_gpt.py's own defaults, [2]); deepspeed -> kDeepSpeed; torchtitan -> kTorchtitan
 * (the current config registry). NeMo and Megatron-LM share every rule (both run Megatron-Core).
 */
LaunchFramework launch_framework_of(Framework framework);

/**
 * Every reason `framework` cannot run `parallel` for `scenario` the way pplan prices it, in a
 * fixed order: the grid (launch.*), Megatron-LM's own validation (megatron.*: for Megatron-LM,
 * NeMo, which runs Megatron-Core, and Megatron-DeepSpeed; the general ones for torchtitan too),
 * then the framework's own (torchtitan.*, deepspeed.*; for Megatron-LM and NeMo the training
 * switches as Megatron-Core runs them). Every framework first checks that the scenario is
 * priced for it (training.framework: the kernels per layer and the DP communication differ;
 * Megatron-LM and NeMo run either Megatron framework), then that it can run each resolved switch
 * (overlap, gradient dtype, optimizer state dtype, TP overlap, CUDA graphs, FP8 recipe, partial
 * recompute) as priced.
 * NeMo has no rules of its own: every model runs from a recipe whose architecture, MoE block and
 * plan pplan overrides in full. Empty = the generated configuration runs the priced plan.
 * Each rule cites the framework file and commit it comes from (framework/rules.cpp).
 *
 * Codes: launch.world_size_mismatch, launch.partial_node, launch.ep_without_moe,
 * launch.ep_not_divisible, launch.expert_grid; megatron.batch_not_divisible,
 * megatron.heads_not_divisible, megatron.query_groups, megatron.layers_not_divisible,
 * megatron.vpp_needs_pp, megatron.vpp_not_divisible, megatron.vpp_microbatches,
 * megatron.cp_seq_not_divisible, megatron.fp8_unsupported, megatron.fp8_recipe_hardware,
 * megatron.rope_theta_not_integer, megatron.priced_for_another_framework,
 * megatron.optimizer_state_needs_zero,
 * megatron.param_gather_needs_grad_reduce, megatron.cuda_graphs_full_recompute,
 * megatron.cuda_graphs_dropout_recompute, megatron.cuda_graphs_moe;
 * torchtitan.priced_for_another_framework, torchtitan.no_model, torchtitan.tp_kv_heads,
 * torchtitan.tp_without_sp, torchtitan.no_expert_tp, torchtitan.ep_not_divisible,
 * torchtitan.selective_recompute, torchtitan.no_zero1, torchtitan.zero0_sharded,
 * torchtitan.cp_allgather, torchtitan.tokens_not_divisible, torchtitan.split_differs,
 * torchtitan.reduce_dtype, torchtitan.overlap_always, torchtitan.no_cuda_graphs,
 * torchtitan.cuda_graphs_pipeline, torchtitan.fp8_recipe, torchtitan.optimizer_state_dtype,
 * torchtitan.partial_recompute;
 * deepspeed.priced_for_another_framework, deepspeed.zero_with_pipeline, deepspeed.zero0_pipeline,
 * deepspeed.pipeline_no_overlap, deepspeed.pipeline_split, deepspeed.no_interleaving,
 * deepspeed.no_ring_cp, deepspeed.no_mla, deepspeed.moe_shared_experts, deepspeed.moe_expert_width,
 * deepspeed.moe_zero3, deepspeed.moe_tp, deepspeed.fp8_pipeline, deepspeed.fp8_moe, deepspeed.fp8_model,
 * deepspeed.fp8_recipe, deepspeed.zero0_no_overlap,
 * deepspeed.optimizer_state_needs_zero, deepspeed.optimizer_state_fp32_grads,
 * deepspeed.no_param_gather_overlap, deepspeed.zero0_fp32_grads,
 * deepspeed.partial_recompute_pipeline, deepspeed.no_tp_overlap, deepspeed.no_cuda_graphs;
 * megatron.schedule_unsupported, torchtitan.schedule_unsupported, deepspeed.schedule_unsupported,
 * torchtitan.activation_fp8_store, deepspeed.activation_fp8_store, megatron.activation_fp8_store_no_flag,
 * torchtitan.fp8_attention, deepspeed.fp8_attention, megatron.fp8_attention_no_flag.
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

/**
 * What the search keeps to: the code of the first problem the scenario's own framework
 * (launch_framework_of(training.framework)) has with `parallel` that a different parallel
 * configuration could avoid, or nullptr. The same rules as framework_problems(), passing over
 * plan_independent_problem() codes. Allocates nothing.
 */
const char* first_framework_problem(const Scenario& scenario, const ParallelConfig& parallel);

/// The same, given the split evaluate() prices for `parallel` (split_layers of its pins): the
/// search has it for every configuration of a grid.
const char* first_framework_problem(const Scenario& scenario, const ParallelConfig& parallel,
                                    const StageSplit& priced_split);

/// Whether `framework` runs `schedule` at `vpp` chunks per rank: Megatron-Core 1F1B and
/// interleaved 1F1B (Megatron-LM d98e8a64 megatron/core/pipeline_parallel/schedules.py:154
/// get_forward_backward_func); torchtitan every schedule but the bidirectional DualPipe, by
/// torch.distributed.pipelining's names (1F1B, Interleaved1F1B, InterleavedZeroBubble,
/// ZBVZeroBubble, DualPipeV; torchtitan b5bcd76c distributed/pipeline_parallel.py:205), its
/// multi-stage InterleavedZeroBubble at two stages per rank or more (:252); DeepSpeed 1F1B
/// (DeepSpeed edaa7221 deepspeed/runtime/pipe/schedule.py:189 TrainSchedule). DualPipe itself
/// runs in DeepSeek's own framework (deepseek-ai/DualPipe).
bool framework_runs_schedule(LaunchFramework framework, ScheduleKind schedule, int vpp);

/// Codes no parallel configuration avoids (the GPU, the model, the switches, the framework the
/// scenario is priced for) or that only pplan's script writer has
/// (torchtitan.split_differs): the launch reports them, the search does not reject for them.
bool plan_independent_problem(std::string_view code);

}  // namespace pplan
