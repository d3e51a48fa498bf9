#pragma once
/// What a framework makes of one plan: the quantities every launch format prints (world size,
/// nodes, micro-batches, the switches as priced) and each framework's own mapping of the model
/// and the plan (torchtitan's registry entry, FSDP mesh and pipeline keys; NeMo's recipe). The
/// rules (rules.h) and the launch generators (core/src/launch) both read them, so a generator
/// and the rule that admits its plan cannot disagree. Namespace detail: shared by those two,
/// not an interface for users of the library.

#include <vector>

#include "pplan/framework/rules.h"
#include "pplan/specs.h"
#include "pplan/stage_split.h"

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

  // The training switches as the step-time model prices them (framework/framework.h; compute.cpp
  // applies TP overlap only with sequence parallelism; estimate.cpp's DP overlap): every format
  // emits these, or its framework's rule refuses the plan.
  bool sequence_parallel = false;  ///< SP with tp > 1
  bool tp_overlap = false;         ///< TP collectives overlapped with GEMMs (tp_comm_overlap, SP)
  bool grad_overlap = false;       ///< DP gradient reduction overlapped (dp·cp > 1)
  bool param_overlap = false;      ///< DP weight all-gather overlapped (ZeRO >= 1, dp·cp > 1)
  bool grad_fp32 = true;           ///< gradients accumulated and reduced in fp32
  bool bf16_optimizer_state = false;  ///< training.optimizer_state_dtype "bf16" (memory.h)
  bool cuda_graphs = false;
  bool activation_fp8_store = false;  ///< training.activation_func_fp8_input_store (SwiGLU)
  bool fp8_params = false;            ///< training.fp8_param_gather, on an FP8 plan
  bool fp8_attention = false;         ///< training.fp8_dot_product_attention, on an FP8 plan
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

}  // namespace pplan::detail
