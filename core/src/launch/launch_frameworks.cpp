// Other frameworks: torchtitan (current Python config registry and the older TOML),
// DeepSpeed JSON with Megatron-DeepSpeed flags, and NeMo 2.0 recipe overrides.
// Facts: torchtitan b5bcd76c (torchtitan/config/configs.py), DeepSpeed edaa7221 (deepspeed/runtime/zero/config.py), Megatron-DeepSpeed 4efb479d (megatron/arguments.py), NeMo 8cfedd72 (nemo/collections/llm/recipes), torchrun and SLURM documentation.
#include <algorithm>
#include <sstream>

#include "detail_launch.h"
#include "pplan/io/json_io.h"

namespace pplan::detail {

namespace {

/// torchtitan's registry entry for a preset, or empty when torchtitan has no such model.
struct TitanBase {
  std::string module;    ///< for --module and the import
  std::string function;  ///< for --config
  std::string toml_name, toml_flavor;
};

TitanBase titan_base(const ModelSpec& model) {
  if (model.id == "llama3-8b") return {"llama3", "llama3_8b", "llama3", "8B"};
  if (model.id == "llama3-70b") return {"llama3", "llama3_70b", "llama3", "70B"};
  if (model.id == "llama3-405b") return {"llama3", "llama3_405b", "llama3", "405B"};
  if (model.id == "deepseek-v3") return {"deepseek_v3", "deepseek_v3_671b", "deepseek_v3", "671B"};
  return {};
}

const char* py_bool(bool value) { return value ? "True" : "False"; }

/// How pplan's ZeRO stage maps onto FSDP2 data parallelism (torchtitan has no ZeRO-1).
struct TitanDp {
  int replicate = 1;
  int shard = 1;
  std::string reshard;  ///< fsdp_reshard_after_forward
  std::string note;
};

TitanDp titan_dp(const ParallelConfig& p, bool toml_era) {
  TitanDp d;
  const bool other_parallelism = p.tp > 1 || p.pp > 1 || p.cp > 1 || p.ep > 1;
  if (p.zero == 0 && !(toml_era && other_parallelism)) {
    d.replicate = p.dp;
    d.reshard = "default";
    d.note = "ZeRO-0: weights replicated over DP (DDP-style)";
  } else if (p.zero == 0) {
    d.shard = p.dp;
    d.reshard = "never";
    d.note = "ZeRO-0 asked, but TOML-era torchtitan allows DDP only without TP/PP/CP/EP: "
             "FSDP with reshard_after_forward=never (ZeRO-2-like) instead";
  } else if (p.zero <= 2) {
    d.shard = p.dp;
    d.reshard = "never";
    d.note = "ZeRO-" + num(p.zero) + ": torchtitan has no ZeRO-1/2; FSDP2 without resharding "
             "after forward keeps weights gathered (ZeRO-2-like, more memory than ZeRO-1)";
  } else {
    d.shard = p.dp;
    d.reshard = "default";
    d.note = "ZeRO-3 = FSDP2";
  }
  return d;
}

/// Pipeline schedule settings in torchtitan's terms (torchtitan b5bcd76c torchtitan/config/configs.py).
struct TitanPipeline {
  std::string schedule;
  int layers_per_stage = 0;
  int first_less = 0;
  int last_less = 0;
};

TitanPipeline titan_pipeline(const Estimate& plan) {
  const ParallelConfig& p = plan.parallel;
  TitanPipeline t;
  t.schedule = p.vpp > 1 ? "Interleaved1F1B" : "1F1B";
  const StageSplit& split = plan.split;
  if (split.uneven && !split.embedding_counted && !split.loss_counted) {
    // Explicit uneven split (vpp 1 only, see torchtitan_problems): the first/last stages are
    // "less" than the fullest stage by the difference.
    const int per = split.max_layers();
    t.layers_per_stage = per;
    t.first_less = per - split.first_layers;
    t.last_less = per - split.last_layers;
    return t;
  }
  const int units = split.units_per_stage > 0 ? split.units_per_stage : split.first_layers;
  t.layers_per_stage = units / std::max(1, p.vpp);
  t.first_less = split.embedding_counted ? 1 : 0;
  t.last_less = split.loss_counted ? 1 : 0;
  return t;
}

std::string torchrun_c10d(const LaunchFacts& f) {
  return "torchrun --nnodes " + num(f.nodes) + " --nproc_per_node " + num(f.nproc_per_node) +
         " --rdzv_id \"${SLURM_JOB_ID:-pplan}\" --rdzv_backend c10d --rdzv_endpoint \"$MASTER_ADDR:$MASTER_PORT\"";
}

std::string rendezvous_placeholders() {
  return "MASTER_ADDR=${MASTER_ADDR:-localhost}  # PLACEHOLDER on multi-node runs: node 0's address\n"
         "MASTER_PORT=${MASTER_PORT:-29500}\n";
}

/// NeMo's precision plugin (recipes/precision/mixed_precision.py): delayed-scaling FP8 before
/// Blackwell, MXFP8 on Blackwell.
std::string nemo_precision(const LaunchFacts& f) {
  if (!f.fp8) return "bf16_mixed";
  return f.architecture == "blackwell" ? "bf16_with_mxfp8_mixed" : "bf16_with_fp8_mixed";
}

bool explicit_uneven(const StageSplit& split) {
  return split.uneven && !split.embedding_counted && !split.loss_counted;
}

}  // namespace

std::string torchtitan_script(const Scenario& scenario, const Estimate& plan, const LaunchFacts& f) {
  const ParallelConfig& p = f.parallel;
  const TitanBase base = titan_base(scenario.model);
  const TitanDp dp = titan_dp(p, false);
  const TitanPipeline pipe = titan_pipeline(plan);
  std::ostringstream out;
  out << "#!/bin/bash\n";
  out << plan_header(scenario, plan, f, "torchtitan launch, current config registry (--module/--config)");
  out << "# torchtitan replaced TOML with Python config functions on 2026-02-23 (PR #2386); for older\n";
  out << "# checkouts use --format torchtitan-toml. Run this on every node (same command everywhere).\n";
  out << "set -euo pipefail\n";
  out << "TORCHTITAN_DIR=${TORCHTITAN_DIR:-/path/to/torchtitan}  # PLACEHOLDER: torchtitan checkout\n";
  out << rendezvous_placeholders() << "\n";
  out << "# 1) The plan as a config function (torchtitan's recommended way to configure a run).\n";
  out << "cat > \"$TORCHTITAN_DIR/pplan_plan.py\" <<'EOF'\n";
  if (base.module.empty()) {
    out << "# PLACEHOLDER: torchtitan has no preset for " << scenario.model.name
        << "; this starts from llama3_8b():\n# replace config.model_spec with your architecture ("
        << scenario.model.layers << " layers, hidden " << scenario.model.hidden << ", "
        << scenario.model.heads << " heads).\n";
    out << "from torchtitan.models.llama3.config_registry import llama3_8b as base_config\n";
  } else {
    out << "from torchtitan.models." << base.module << ".config_registry import " << base.function
        << " as base_config\n";
  }
  out << "from torchtitan.distributed.activation_checkpoint import FullAC, SelectiveAC\n";
  out << "from torchtitan.trainer import Trainer\n\n\n";
  out << "def pplan_plan() -> Trainer.Config:\n";
  out << "    config = base_config()\n";
  out << "    p = config.parallelism\n";
  out << "    p.tensor_parallel_degree = " << p.tp << "\n";
  out << "    p.enable_sequence_parallel = " << py_bool(p.sequence_parallel && p.tp > 1) << "\n";
  out << "    p.context_parallel_degree = " << p.cp << "\n";
  out << "    p.pipeline_parallel_degree = " << p.pp << "\n";
  if (p.pp > 1) {
    out << "    p.pipeline_parallel_schedule = \"" << pipe.schedule << "\"\n";
    out << "    p.pipeline_parallel_layers_per_stage = " << pipe.layers_per_stage << "  # "
        << p.pp * p.vpp << " stages in all\n";
    out << "    p.pipeline_parallel_first_stage_less_layers = " << pipe.first_less << "\n";
    out << "    p.pipeline_parallel_last_stage_less_layers = " << pipe.last_less << "\n";
    out << "    p.num_pp_microbatches = " << f.microbatches << "\n";
  }
  out << "    p.data_parallel_replicate_degree = " << dp.replicate << "\n";
  out << "    p.data_parallel_shard_degree = " << dp.shard << "  # " << dp.note << "\n";
  out << "    p.fsdp_reshard_after_forward = \"" << dp.reshard << "\"\n";
  if (f.moe) out << "    p.expert_parallel_degree = " << p.ep << "\n";
  out << "    t = config.training\n";
  out << "    t.num_tokens_per_microbatch_per_dp_rank = " << 1LL * p.micro_batch * f.seq_len
      << "  # micro-batch " << p.micro_batch << " x seq " << f.seq_len << "\n";
  out << "    t.num_tokens_per_train_step = " << f.tokens_per_step << "  # global batch "
      << f.global_batch << " x seq " << f.seq_len << "\n";
  out << "    t.max_context_length = " << f.seq_len << "\n";
  if (f.train_iters > 0) out << "    t.steps = " << f.train_iters << "\n";
  if (p.recompute == Recompute::kFull) out << "    config.activation_checkpoint = FullAC.Config()\n";
  else if (p.recompute == Recompute::kSelective) out << "    config.activation_checkpoint = SelectiveAC.Config()\n";
  else out << "    config.activation_checkpoint = None  # no recompute\n";
  if (f.fp8) {
    out << "    # FP8: start from a *_float8 / *_mxfp8 registry entry or add Float8LinearConverter.Config()\n";
    out << "    # to the model_spec converters (torchtitan.components.quantization).\n";
  }
  out << "    return config\n";
  out << "EOF\n\n";
  out << "# 2) Launch (world " << f.world_size << " = dp_replicate " << dp.replicate << " x dp_shard "
      << dp.shard << " x cp " << p.cp << " x tp " << p.tp << " x pp " << p.pp << ").\n";
  out << "cd \"$TORCHTITAN_DIR\"\n";
  out << "PYTORCH_ALLOC_CONF=\"expandable_segments:True\" " << torchrun_c10d(f) << " \\\n";
  out << "    --local-ranks-filter 0 --role rank --tee 3 \\\n";
  out << "    -m torchtitan.train --module pplan_plan --config pplan_plan\n";
  return out.str();
}

std::string torchtitan_toml(const Scenario& scenario, const Estimate& plan, const LaunchFacts& f) {
  const ParallelConfig& p = f.parallel;
  const TitanBase base = titan_base(scenario.model);
  const TitanDp dp = titan_dp(p, true);
  const TitanPipeline pipe = titan_pipeline(plan);
  std::ostringstream out;
  out << plan_header(scenario, plan, f, "torchtitan TOML job config (before 2026-02-23, PR #2386)");
  out << "# Launch on every node: torchrun --nnodes " << f.nodes << " --nproc_per_node "
      << f.nproc_per_node << " --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:29500 \\\n";
  out << "#     -m torchtitan.train --job.config_file pplan.toml\n\n";
  out << "[model]\n";
  if (base.toml_name.empty()) {
    out << "name = \"llama3\"  # PLACEHOLDER: torchtitan has no preset for " << scenario.model.name << "\n";
    out << "flavor = \"8B\"  # PLACEHOLDER: register your architecture as a flavor\n";
  } else {
    out << "name = \"" << base.toml_name << "\"\n";
    out << "flavor = \"" << base.toml_flavor << "\"\n";
  }
  if (f.fp8) out << "converters = [\"float8\"]\n";
  out << "\n[training]\n";
  const long long local_batch = p.pp > 1 ? 1LL * p.micro_batch * f.microbatches : p.micro_batch;
  out << "local_batch_size = " << local_batch
      << (p.pp > 1 ? "  # per DP rank per step: micro-batch x micro-batches (pipelined)"
                   : "  # per DP rank per forward; gradient accumulation makes up the global batch")
      << "\n";
  out << "global_batch_size = " << f.global_batch << "\n";
  out << "seq_len = " << f.seq_len << "\n";
  out << "mixed_precision_param = \"bfloat16\"\n";
  out << "mixed_precision_reduce = \"float32\"\n";
  if (f.train_iters > 0) out << "steps = " << f.train_iters << "\n";
  out << "\n[parallelism]\n";
  out << "data_parallel_replicate_degree = " << dp.replicate << "\n";
  out << "data_parallel_shard_degree = " << dp.shard << "  # " << dp.note << "\n";
  out << "fsdp_reshard_after_forward = \"" << dp.reshard << "\"\n";
  out << "tensor_parallel_degree = " << p.tp << "\n";
  out << "context_parallel_degree = " << p.cp << "\n";
  out << "pipeline_parallel_degree = " << p.pp << "\n";
  if (p.pp > 1) {
    out << "pipeline_parallel_schedule = \"" << pipe.schedule << "\"\n";
    out << "pipeline_parallel_layers_per_stage = " << pipe.layers_per_stage << "\n";
    out << "pipeline_parallel_first_stage_less_layers = " << pipe.first_less << "\n";
    out << "pipeline_parallel_last_stage_less_layers = " << pipe.last_less << "\n";
    out << "pipeline_parallel_microbatch_size = " << p.micro_batch << "  # -> " << f.microbatches
        << " micro-batches\n";
  }
  if (f.moe) {
    out << "expert_parallel_degree = " << p.ep << "\n";
    out << "expert_tensor_parallel_degree = " << p.tp << "  # pplan prices expert TP = tp (TOML era: 1 or tp)\n";
  }
  out << "\n[activation_checkpoint]\n";
  out << "mode = \"" << recompute_name(p.recompute) << "\"\n";
  if (p.recompute == Recompute::kSelective) out << "selective_ac_option = \"op\"\n";
  if (f.fp8) {
    out << "\n[quantize.linear.float8]\n";
    out << "enable_fsdp_float8_all_gather = " << (dp.shard > 1 ? "true" : "false") << "\n";
    out << "precompute_float8_dynamic_scale_for_fsdp = " << (dp.shard > 1 ? "true" : "false") << "\n";
    out << "filter_fqns = [\"output\"]\n";
  }
  return out.str();
}

std::vector<LaunchProblem> torchtitan_problems(const Estimate& plan, const LaunchFacts& f,
                                               bool toml_era) {
  std::vector<LaunchProblem> out;
  const ParallelConfig& p = f.parallel;
  const StageSplit& split = plan.split;
  if (p.pp > 1 && p.vpp > 1 && split.uneven && !split.embedding_counted && !split.loss_counted) {
    out.push_back({"torchtitan.uneven_interleaved",
                   "an uneven split (" + num(split.first_layers) + "/" + num(split.middle_layers) +
                       "/" + num(split.last_layers) +
                       ") with virtual stages cannot be expressed with pipeline_parallel_layers_per_stage; "
                       "set module_fqns_per_model_part by hand or use --format megatron"});
  }
  if (p.pp > 2 && split.uneven && !split.embedding_counted && !split.loss_counted &&
      split.middle_layers != split.max_layers()) {
    out.push_back({"torchtitan.uneven_split",
                   "torchtitan can only make the first and last stages smaller than the middle ones"});
  }
  const TitanDp dp = titan_dp(p, toml_era);
  if (p.ep > 1 && (1LL * dp.shard * p.cp * p.tp) % p.ep != 0) {
    out.push_back({"torchtitan.ep_not_divisible",
                   "torchtitan needs expert_parallel_degree " + num(p.ep) +
                       " to divide dp_shard*cp*tp = " + num(1LL * dp.shard * p.cp * p.tp)});
  }
  return out;
}

std::vector<LaunchProblem> deepspeed_problems(const Scenario& scenario, const LaunchFacts& f) {
  std::vector<LaunchProblem> out;
  const ParallelConfig& p = f.parallel;
  if (p.pp > 1 && p.zero >= 2) {
    out.push_back({"deepspeed.zero_with_pipeline",
                   "DeepSpeed's pipeline engine supports ZeRO stage 0 or 1 only; ZeRO-" +
                       num(p.zero) + " needs pp = 1"});
  }
  if (p.vpp > 1) {
    out.push_back({"deepspeed.no_interleaving",
                   "DeepSpeed's pipeline engine has no interleaved (virtual-stage) schedule; use vpp = 1"});
  }
  if (p.cp > 1) {
    out.push_back({"deepspeed.no_ring_cp",
                   "Megatron-DeepSpeed has no ring context parallelism; DeepSpeed-Ulysses "
                   "(--ds-sequence-parallel-size) is a different algorithm that pplan does not model"});
  }
  if (f.moe) {
    out.push_back({"deepspeed.moe_not_generated",
                   "pplan does not generate Megatron-DeepSpeed MoE flags (--num-experts takes a "
                   "per-layer list there); use --format megatron"});
  }
  (void)scenario;
  return out;
}

std::string deepspeed_script(const Scenario& scenario, const Estimate& plan, const LaunchFacts& f) {
  const ParallelConfig& p = f.parallel;
  const ModelSpec& model = scenario.model;
  std::ostringstream out;
  out << "#!/bin/bash\n";
  out << plan_header(scenario, plan, f, "DeepSpeed config + Megatron-DeepSpeed launch");
  out << "# Run on every node with NODE_RANK = 0.." << (f.nodes - 1) << ".\n";
  out << "set -euo pipefail\n";
  out << "MDS_DIR=${MDS_DIR:-/path/to/Megatron-DeepSpeed}      # PLACEHOLDER\n";
  out << "DATA_PATH=${DATA_PATH:-/path/to/corpus_text_document}  # PLACEHOLDER\n";
  out << "TOKENIZER_MODEL=${TOKENIZER_MODEL:-/path/to/tokenizer}  # PLACEHOLDER\n";
  out << rendezvous_placeholders();
  out << "NODE_RANK=${NODE_RANK:-0}\n";
  out << "# Hyperparameters (--lr etc.) are typical values: tune them.\n";
  out << "TRAIN_ITERS=" << (f.train_iters > 0 ? num(f.train_iters) : "${TRAIN_ITERS:-1000}  # PLACEHOLDER")
      << "\n\n";
  out << "# train_batch_size = micro-batch x gradient_accumulation_steps x DP (DeepSpeed asserts it);\n";
  out << "# with a pipeline, gradient_accumulation_steps is the number of micro-batches per step.\n";
  out << "cat > ds_config.json <<'EOF'\n";
  out << "{\n";
  out << "  \"train_batch_size\": " << f.global_batch << ",\n";
  out << "  \"train_micro_batch_size_per_gpu\": " << p.micro_batch << ",\n";
  out << "  \"gradient_accumulation_steps\": " << f.microbatches << ",\n";
  out << "  \"gradient_clipping\": 1.0,\n";
  out << "  \"steps_per_print\": 10,\n";
  out << "  \"bf16\": { \"enabled\": true },\n";
  out << "  \"zero_optimization\": {\n";
  out << "    \"stage\": " << p.zero << ",\n";
  out << "    \"overlap_comm\": " << (scenario.training.overlap_grad_reduce ? "true" : "false") << ",\n";
  out << "    \"contiguous_gradients\": true,\n";
  out << "    \"reduce_scatter\": true\n";
  out << "  },\n";
  out << "  \"wall_clock_breakdown\": false\n";
  out << "}\n";
  out << "EOF\n\n";
  out << "export CUDA_DEVICE_MAX_CONNECTIONS=1  # Megatron's async TP communication relies on in-order kernels\n";
  if (f.fp8) out << "# FP8 is not configured through ds_config.json; this launch trains in bf16.\n";
  if (plan.split.embedding_counted || plan.split.loss_counted || explicit_uneven(plan.split)) {
    out << "# NOTE: DeepSpeed partitions the pipeline itself (pipeline.partition); pplan's split "
        << plan.split.first_layers << "/" << plan.split.middle_layers << "/" << plan.split.last_layers
        << " is not passed through.\n";
  }
  out << "torchrun --nproc_per_node " << f.nproc_per_node << " --nnodes " << f.nodes
      << " --node_rank \"$NODE_RANK\" --master_addr \"$MASTER_ADDR\" --master_port \"$MASTER_PORT\" \\\n";
  out << "    \"$MDS_DIR/pretrain_gpt.py\" \\\n";
  auto line = [&out](const std::string& text) { out << "    " << text << " \\\n"; };
  line("--tensor-model-parallel-size " + num(p.tp));
  line("--pipeline-model-parallel-size " + num(p.pp));
  if (p.sequence_parallel && p.tp > 1) line("--sequence-parallel");
  line("--num-layers " + num(model.layers));
  line("--hidden-size " + num(model.hidden));
  line("--ffn-hidden-size " + num(model.ffn_hidden));
  line("--num-attention-heads " + num(model.heads));
  if (model.kv_heads < model.heads) line("--num-key-value-heads " + num(model.kv_heads));
  line("--seq-length " + num(f.seq_len));
  line("--max-position-embeddings " + num(f.seq_len));
  if (!model.learned_positions) {
    line("--use-rotary-position-embeddings");
    if (model.id.rfind("llama3", 0) == 0) line("--rotary-position-embeddings-theta 500000");
    line("--normalization rmsnorm");
    line("--disable-bias-linear");
  }
  if (model.activation == Activation::kSwiglu) line("--swiglu");
  if (!model.tied_embeddings) line("--untie-embeddings-and-output-weights");
  if (!model.dropout) line("--hidden-dropout 0 --attention-dropout 0");
  line("--no-query-key-layer-scaling");
  line("--micro-batch-size " + num(p.micro_batch));
  line("--global-batch-size " + num(f.global_batch));
  line("--train-iters \"$TRAIN_ITERS\"");
  if (p.recompute == Recompute::kSelective) line("--recompute-granularity selective");
  if (p.recompute == Recompute::kFull) {
    line("--recompute-granularity full --recompute-method uniform --recompute-num-layers 1");
  }
  line("--bf16");
  line("--lr 1.5e-4 --min-lr 1.5e-5 --lr-decay-style cosine --lr-warmup-fraction 0.01");
  line("--weight-decay 0.1 --clip-grad 1.0 --adam-beta1 0.9 --adam-beta2 0.95");
  line("--data-path \"$DATA_PATH\" --data-impl mmap --split 99,1,0");
  if (model.learned_positions) {
    line("--tokenizer-type GPT2BPETokenizer --vocab-file \"$TOKENIZER_MODEL/vocab.json\" --merge-file \"$TOKENIZER_MODEL/merges.txt\"");
  } else {
    line("--tokenizer-type HFTokenizer --tokenizer-model \"$TOKENIZER_MODEL\"");
  }
  line("--log-interval 10 --eval-interval 1000 --eval-iters 10");
  if (p.pp == 1) line("--no-pipeline-parallel");
  out << "    --deepspeed --deepspeed_config ds_config.json --zero-stage " << p.zero << "\n";
  return out.str();
}

std::string nemo_script(const Scenario& scenario, const Estimate& plan, const LaunchFacts& f) {
  const ParallelConfig& p = f.parallel;
  const ModelSpec& model = scenario.model;
  std::string recipe;
  if (model.id == "gpt3-175b") recipe = "gpt3_175b";
  else if (model.id == "llama3-8b") recipe = "llama3_8b";
  else if (model.id == "llama3-70b") recipe = "llama3_70b";
  else if (model.id == "llama3-405b") recipe = "llama31_405b";
  else if (model.id == "deepseek-v3") recipe = "deepseek_v3";
  const bool custom = recipe.empty();
  if (custom) recipe = model.learned_positions ? "gpt3_175b" : "llama3_8b";
  std::ostringstream out;
  out << plan_header(scenario, plan, f, "NeMo 2.0 recipe overrides (nemo.collections.llm + NeMo-Run)");
  out << "# Save as pplan_nemo.py and run `python pplan_nemo.py` on a login node (NeMo-Run submits it).\n";
  out << "# Recipes default num_nodes to 1 and bring their own parallelism: every value below overrides them.\n";
  out << "import nemo_run as run\n";
  out << "from nemo.collections import llm\n";
  out << "from nemo.collections.llm.recipes.precision.mixed_precision import "
      << nemo_precision(f) << "\n\n";
  out << "recipe = llm." << recipe << ".pretrain_recipe(\n";
  out << "    name=\"pplan\", dir=\"/path/to/checkpoints\",  # PLACEHOLDER\n";
  out << "    num_nodes=" << f.nodes << ", num_gpus_per_node=" << f.nproc_per_node << ")\n";
  if (custom) {
    out << "# " << model.name << " has no NeMo recipe: start from " << recipe
        << " and set the architecture.\n";
    out << "recipe.model.config.num_layers = " << model.layers << "\n";
    out << "recipe.model.config.hidden_size = " << model.hidden << "\n";
    out << "recipe.model.config.ffn_hidden_size = " << model.ffn_hidden << "\n";
    out << "recipe.model.config.num_attention_heads = " << model.heads << "\n";
    out << "recipe.model.config.num_query_groups = " << model.kv_heads << "\n";
  }
  out << "recipe.model.config.seq_length = " << f.seq_len << "\n";
  out << "recipe.data.seq_length = " << f.seq_len << "\n";
  out << "recipe.data.global_batch_size = " << f.global_batch << "\n";
  out << "recipe.data.micro_batch_size = " << p.micro_batch << "  # -> " << f.microbatches
      << " micro-batches per step\n";
  out << "recipe.trainer.max_steps = " << (f.train_iters > 0 ? num(f.train_iters) : "1000  # PLACEHOLDER")
      << "\n";
  out << "strategy = recipe.trainer.strategy\n";
  out << "strategy.tensor_model_parallel_size = " << p.tp << "\n";
  out << "strategy.pipeline_model_parallel_size = " << p.pp << "\n";
  out << "strategy.virtual_pipeline_model_parallel_size = " << (p.vpp > 1 ? num(p.vpp) : "None") << "\n";
  out << "strategy.context_parallel_size = " << p.cp << "\n";
  out << "strategy.sequence_parallel = " << py_bool(p.sequence_parallel && p.tp > 1) << "\n";
  if (f.moe) {
    out << "strategy.expert_model_parallel_size = " << p.ep << "\n";
    out << "strategy.expert_tensor_parallel_size = " << p.tp << "\n";
  }
  const StageSplit& split = plan.split;
  const bool uneven = p.pp > 1 && explicit_uneven(split);
  out << "strategy.num_layers_in_first_pipeline_stage = " << (uneven ? num(split.first_layers) : "None") << "\n";
  out << "strategy.num_layers_in_last_pipeline_stage = " << (uneven ? num(split.last_layers) : "None") << "\n";
  out << "strategy.account_for_embedding_in_pipeline_split = " << py_bool(p.pp > 1 && split.embedding_counted) << "\n";
  out << "strategy.account_for_loss_in_pipeline_split = " << py_bool(p.pp > 1 && split.loss_counted) << "\n";
  out << "recipe.optim.config.use_distributed_optimizer = " << py_bool(p.zero >= 1) << "\n";
  if (f.megatron_fsdp) {
    out << "strategy.fsdp = \"megatron\"  # ZeRO-" << p.zero << " = Megatron-FSDP\n";
    out << "strategy.ddp.data_parallel_sharding_strategy = \""
        << (p.zero == 2 ? "optim_grads" : "optim_grads_params") << "\"\n";
    out << "strategy.save_ckpt_format = \"fsdp_dtensor\"\n";
  }
  const bool overlap = scenario.training.overlap_grad_reduce;  // as the step-time model assumes
  out << "strategy.ddp.overlap_grad_reduce = " << py_bool(overlap) << "\n";
  out << "strategy.ddp.overlap_param_gather = " << py_bool(overlap && p.zero >= 1) << "\n";
  if (p.recompute == Recompute::kSelective) {
    out << "recipe.model.config.recompute_granularity = \"selective\"\n";
  } else if (p.recompute == Recompute::kFull) {
    out << "recipe.model.config.recompute_granularity = \"full\"\n";
    out << "recipe.model.config.recompute_method = \"uniform\"\n";
    out << "recipe.model.config.recompute_num_layers = 1\n";
  } else {
    out << "recipe.model.config.recompute_granularity = None\n";
  }
  out << "recipe.trainer.plugins = " << nemo_precision(f) << "()\n";
  if (f.fp8 && p.zero == 0) {
    out << "recipe.trainer.plugins.fp8_param_gather = False  # needs the distributed optimizer (ZeRO >= 1)\n";
  }
  out << "\n";
  out << "executor = run.SlurmExecutor(\n";
  out << "    account=\"PLACEHOLDER_ACCOUNT\", partition=\"PLACEHOLDER_PARTITION\",\n";
  out << "    nodes=" << f.nodes << ", ntasks_per_node=" << f.nproc_per_node << ", gpus_per_node="
      << f.nproc_per_node << ", mem=\"0\", exclusive=True,\n";
  out << "    container_image=\"PLACEHOLDER_NEMO_CONTAINER\",  # e.g. nvcr.io/nvidia/nemo:YY.MM\n";
  out << "    tunnel=run.LocalTunnel(job_dir=\"/path/to/nemo-run-jobs\"),  # PLACEHOLDER\n";
  out << "    env_vars={\n";
  for (const EnvVar& v : environment(scenario, f)) {
    if (v.kind != EnvVar::Kind::kExport) continue;
    out << "        \"" << v.name << "\": \"" << v.value << "\",\n";
  }
  out << "    },\n";
  out << ")\n";
  out << "run.run(recipe, executor=executor, name=\"pplan\")\n\n";
  // The same overrides on NeMo's CLI (nemo llm pretrain --factory, NeMo 8cfedd72 nemo/collections/llm/api.py).
  out << "# CLI alternative (parallelism and batch only; the rest as above):\n";
  out << "# nemo llm pretrain --factory \"" << recipe << "(num_nodes=" << f.nodes
      << ", num_gpus_per_node=" << f.nproc_per_node << ")\" \\\n";
  out << "#     trainer.strategy.tensor_model_parallel_size=" << p.tp
      << " trainer.strategy.pipeline_model_parallel_size=" << p.pp
      << " trainer.strategy.virtual_pipeline_model_parallel_size=" << (p.vpp > 1 ? num(p.vpp) : "None")
      << " \\\n";
  out << "#     trainer.strategy.context_parallel_size=" << p.cp
      << " trainer.strategy.sequence_parallel=" << py_bool(p.sequence_parallel && p.tp > 1);
  if (f.moe) out << " trainer.strategy.expert_model_parallel_size=" << p.ep;
  out << " \\\n";
  out << "#     data.seq_length=" << f.seq_len << " data.global_batch_size=" << f.global_batch
      << " data.micro_batch_size=" << p.micro_batch << "\n";
  return out.str();
}

}  // namespace pplan::detail
