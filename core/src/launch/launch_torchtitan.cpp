// torchtitan: the current Python config registry (torchtitan b5bcd76c, --module/--config) and
// the TOML job config it replaced (238fa995, the parent of PR #2386). Keys, types and defaults:
// torchtitan/config/configs.py, trainer.py and the registries at b5bcd76c;
// torchtitan/config/job_config.py at 238fa995. What torchtitan cannot run as priced is refused
// in framework/rules.cpp; both use the helpers of detail_launch.h.
#include <sstream>

#include "detail_launch.h"
#include "pplan/diagnostics.h"

namespace pplan::detail {

namespace {

/// The folder torchtitan's scripts/download_hf_assets.py writes a registry model's assets to.
std::string hf_assets_name(const TitanModel& model) {
  const std::string_view flavor = model.flavor;
  if (std::string_view(model.module) == "deepseek_v3") return "DeepSeek-V3";
  return "Llama-3.1-" + std::string(flavor);
}

}  // namespace

namespace {

const char* py_bool(bool value) { return value ? "True" : "False"; }

std::string torchrun_c10d(const LaunchFacts& f) {
  return "torchrun --nnodes " + num(f.nodes) + " --nproc_per_node " + num(f.nproc_per_node) +
         " --rdzv_id \"${SLURM_JOB_ID:-pplan}\" --rdzv_backend c10d --rdzv_endpoint "
         "\"$MASTER_ADDR:$MASTER_PORT\"";
}

/// What both torchtitan formats decide for a plan (the rules admitted exactly these).
struct TitanChoices {
  TitanModel model;
  TitanDp dp;
  TitanPipeline pipe;
  bool deepseek = false;
};

TitanChoices titan_choices(const Scenario& scenario, const Estimate& plan, const LaunchFacts& f) {
  TitanChoices c;
  c.model = titan_model(scenario.model);
  c.dp = titan_dp(f.parallel);
  c.pipe = titan_pipeline(plan.split, f.parallel);
  c.deepseek = std::string(c.model.module) == "deepseek_v3";
  return c;
}

}  // namespace

std::string torchtitan_script(const Scenario& scenario, const Estimate& plan,
                              const LaunchFacts& f) {
  const ParallelConfig& p = f.parallel;
  const auto [model, dp, pipe, deepseek] = titan_choices(scenario, plan, f);
  std::ostringstream out;
  out << "#!/bin/bash\n";
  out << plan_header(scenario, plan, f,
                     "torchtitan launch, current config registry (--module/--config)");
  out << "# For torchtitan b5bcd76c and later: it replaced TOML with Python config functions on "
         "2026-02-23\n";
  out << "# (PR #2386); for older checkouts use --format torchtitan-toml. Run this on every "
         "node.\n";
  out << "set -euo pipefail\n";
  out << "TORCHTITAN_DIR=${TORCHTITAN_DIR:-/path/to/torchtitan}  # PLACEHOLDER: torchtitan "
         "checkout\n";
  out << "MASTER_ADDR=${MASTER_ADDR:-localhost}  # PLACEHOLDER on multi-node runs: node 0's "
         "address\n";
  out << "MASTER_PORT=${MASTER_PORT:-29500}\n\n";
  out << "# 1) The plan as a config function (torchtitan's recommended way to configure a run).\n";
  out << "cat > \"$TORCHTITAN_DIR/pplan_plan.py\" <<'PPLAN_EOF'\n";
  out << "import os\n\n";
  if (f.fp8) {
    out << "from torchtitan.components.quantization import "
        << (deepseek ? "Float8GroupedExpertsConverter, Float8LinearConverter"
                     : "Float8LinearConverter")
        << "\n";
  }
  if (p.recompute == Recompute::kFull)
    out << "from torchtitan.distributed.activation_checkpoint import FullAC\n";
  out << "from torchtitan.models." << model.module << " import model_registry\n";
  out << "from torchtitan.models." << model.module << ".config_registry import " << model.function
      << " as base_config\n";
  out << "from torchtitan.trainer import Trainer\n\n\n";
  out << "def pplan_plan() -> Trainer.Config:\n";
  out << "    config = base_config()\n";
  // The registry's base configs for these models read real assets and the full c4 (b5bcd76c
  // llama3/config_registry.py, deepseek_v3/config_registry.py), not the test tokenizer and
  // c4_test; the user points them at their copies.
  out << "    # Data as the base config sets it: the model's Hugging Face tokenizer and config under\n";
  out << "    # hf_assets_path (scripts/download_hf_assets.py fetches them) and DATASETS[\"c4\"] "
         "(streams allenai/c4).\n";
  out << "    # PLACEHOLDER: HF_ASSETS_PATH=/your/copy, and your own dataset in "
         "torchtitan/hf_datasets.\n";
  out << "    config.hf_assets_path = os.environ.get(\"HF_ASSETS_PATH\", config.hf_assets_path)\n";
  // torch.compile of the model fuses kernels pplan prices as eager PyTorch (the host cost per
  // kernel, framework/framework.h); async TP needs it (b5bcd76c configs.py CompileConfig).
  if (f.tp_overlap) {
    out << "    # Async TP pipelines the TP collectives with the GEMMs, as priced; it needs the "
           "model compiled,\n";
    out << "    # which also fuses kernels that pplan prices as eager (the run may be a little "
           "faster).\n";
    out << "    config.compile.enable = True\n";
    out << "    config.compile.components = [\"model\", \"loss\"]\n";
    out << "    config.compile.enable_async_tensor_parallel = True\n";
  } else {
    out << "    # pplan prices eager kernels and TP communication without overlap: no compiled "
           "model, no async TP\n";
    if (std::string_view(model.function) == "llama3_405b") out << "    # (llama3_405b() enables both).\n";
    out << "    config.compile.components = [c for c in config.compile.components if c != "
           "\"model\"]\n";
    out << "    config.compile.enable_async_tensor_parallel = False\n";
  }
  out << "    # The registry's model with exactly the converters this plan trains with. Its attention\n";
  out << "    # is block-causal per document (every language-model backend, config_utils.py\n";
  out << "    # get_attention_config); pplan priced causal attention over whole " << f.seq_len
      << "-token sequences,\n";
  out << "    # the run when each sequence is one document (shorter documents: less attention "
         "work).\n";
  if (f.fp8) {
    out << "    model_compile_enabled = config.compile.enable and \"model\" in "
           "config.compile.components\n";
    out << "    config.model_spec = model_registry(" << python_str(model.flavor)
        << ", attn_backend=\"flex\", converters=[\n";
    // As config_registry.py llama3_405b / deepseek_v3_671b_float8: the LM head (and the MoE
    // router) stay bf16; DeepSeek's expert GEMMs are converted too. The converter's rowwise
    // recipe scales from the tensor itself: the "current" recipe the rules admit.
    out << "        Float8LinearConverter.Config(filter_fqns="
        << (deepseek ? "[\"lm_head\", \"router.gate\"]" : "[\"lm_head\"]")
        << ", model_compile_enabled=model_compile_enabled),\n";
    if (deepseek)
      out << "        "
             "Float8GroupedExpertsConverter.Config(model_compile_enabled=model_compile_enabled),\n";
    out << "    ])\n";
  } else {
    out << "    config.model_spec = model_registry(" << python_str(model.flavor)
        << ", attn_backend=\"flex\")\n";
  }
  out << "    p = config.parallelism\n";
  out << "    p.tensor_parallel_degree = " << p.tp << "\n";
  out << "    p.enable_sequence_parallel = " << py_bool(f.sequence_parallel) << "\n";
  out << "    p.context_parallel_degree = " << p.cp << "\n";
  out << "    p.pipeline_parallel_degree = " << p.pp << "\n";
  if (p.pp > 1) {
    out << "    p.pipeline_parallel_schedule = " << python_str(pipe.schedule) << "\n";
    out << "    p.pipeline_parallel_layers_per_stage = " << pipe.layers_per_stage << "  # "
        << p.pp * p.vpp << " stages in all\n";
    out << "    p.pipeline_parallel_first_stage_less_layers = " << pipe.first_less << "\n";
    out << "    p.pipeline_parallel_last_stage_less_layers = " << pipe.last_less << "\n";
    out << "    p.num_pp_microbatches = " << f.microbatches << "\n";
  }
  out << "    p.data_parallel_replicate_degree = " << dp.replicate << "\n";
  out << "    p.data_parallel_shard_degree = " << dp.shard << "  # " << dp.note << "\n";
  out << "    p.fsdp_reshard_after_forward = " << python_str(dp.reshard) << "\n";
  if (f.moe) out << "    p.expert_parallel_degree = " << p.ep << "\n";
  out << "    t = config.training\n";
  out << "    t.num_tokens_per_microbatch_per_dp_rank = " << 1LL * p.micro_batch * f.seq_len
      << "  # micro-batch " << p.micro_batch << " x seq " << f.seq_len << "\n";
  out << "    t.num_tokens_per_train_step = " << f.tokens_per_step << "  # global batch "
      << f.global_batch << " x seq " << f.seq_len << "\n";
  out << "    t.max_context_length = " << f.seq_len << "\n";
  if (f.train_iters > 0) out << "    t.steps = " << f.train_iters << "\n";
  // b5bcd76c trainer.py wraps forward+backward in a CUDA graph unless disabled; pplan prices
  // the host's kernel launches unless training.cuda_graphs (the rules refuse graphs with PP or
  // EP, which torchtitan's _validate_cuda_graphs rejects).
  out << "    t.mixed_precision_reduce = \"float32\"  # gradients reduced in fp32, as priced\n";
  if (f.cuda_graphs) {
    out << "    t.disable_cuda_graphs = False  # forward+backward replayed from a CUDA graph, as "
           "priced\n";
  } else {
    out << "    t.disable_cuda_graphs = True  # pplan prices the host launching every kernel "
           "(training.cuda_graphs false)\n";
  }
  if (f.bf16_optimizer_state) {
    out << "    config.optimizer.implementation = \"fused_opt_states_bf16\"  # bf16 moments beside "
           "fp32 params, as priced\n";
  }
  if (p.recompute == Recompute::kFull)
    out << "    config.activation_checkpoint = FullAC.Config()\n";
  else
    out << "    config.activation_checkpoint = None  # no recompute\n";
  out << "    return config\n";
  out << "PPLAN_EOF\n\n";
  out << "# 2) Launch (world " << f.world_size << " = dp_replicate " << dp.replicate
      << " x dp_shard " << dp.shard << " x cp " << p.cp << " x tp " << p.tp << " x pp " << p.pp
      << ").\n";
  out << "cd \"$TORCHTITAN_DIR\"\n";
  out << "PYTORCH_ALLOC_CONF=\"expandable_segments:True\" " << torchrun_c10d(f) << " \\\n";
  out << "    --local-ranks-filter 0 --role rank --tee 3 \\\n";
  out << "    -m torchtitan.train --module pplan_plan --config pplan_plan\n";
  return out.str();
}

std::optional<Diagnostic> titan_attention_warning(const Scenario& scenario, const LaunchFacts& f,
                                                  bool toml) {
  // b5bcd76c models/common/config_utils.py get_attention_config: every language-model backend
  // masks per document; 238fa995: Llama's flavors run causal SDPA, DeepSeek's flex
  // block_causal (llama3/model/args.py, deepseek_v3/__init__.py).
  if (toml && std::string_view(detail::titan_model(scenario.model).module) != "deepseek_v3") {
    return std::nullopt;
  }
  return Diagnostic{
      "torchtitan.document_mask", Severity::kWarning,
      "torchtitan masks attention per document (block_causal), while pplan priced causal "
      "attention over each whole " + std::to_string(f.seq_len) +
          "-token sequence at FlashAttention's throughput: that is the run when every sequence "
          "is one document; with shorter documents attention does less work, and FlexAttention "
          "is slower per FLOP than FlashAttention" +
          std::string(toml ? "" : ". --format torchtitan-toml runs Llama with the causal SDPA "
                                  "that was priced")};
}

std::string torchtitan_toml(const Scenario& scenario, const Estimate& plan, const LaunchFacts& f) {
  const ParallelConfig& p = f.parallel;
  const auto [model, dp, pipe, deepseek] = titan_choices(scenario, plan, f);
  std::ostringstream out;
  out << plan_header(scenario, plan, f, "torchtitan TOML job config");
  out << "# For torchtitan from 2025-09-30 (#1763, the quantize.* converter names) to 2026-02-23 "
         "(#2386,\n";
  out << "# keys as at 238fa995). Launch on every node: torchrun --nnodes " << f.nodes
      << " --nproc_per_node " << f.nproc_per_node
      << " --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:29500 \\\n";
  out << "#     -m torchtitan.train --job.config_file pplan.toml\n\n";
  out << "[model]\n";
  out << "name = " << toml_str(model.module) << "\n";
  out << "flavor = " << toml_str(model.flavor)
      << (deepseek ? "  # flex attention, block-causal per document (deepseek_v3/__init__.py)\n"
                   : "  # SDPA with a causal mask (llama3/model/args.py attn_type, "
                     "attn_mask_type), as priced\n");
  // Never torchtitan's test defaults (the test tokenizer, c4_test): the real assets, as
  // placeholders the user points at their copies (scripts/download_hf_assets.py fetches them).
  out << "hf_assets_path = " << toml_str(std::string("./assets/hf/") + hf_assets_name(model))
      << "  # PLACEHOLDER: the model's Hugging Face tokenizer and config\n";
  if (f.fp8) {
    out << "converters = [\"quantize.linear.float8\""
        << (deepseek ? ", \"quantize.grouped_mm.float8\"" : "") << "]\n";
  }
  out << "\n[training]\n";
  const long long local_batch = p.pp > 1 ? 1LL * p.micro_batch * f.microbatches : p.micro_batch;
  out << "local_batch_size = " << local_batch
      << (p.pp > 1 ? "  # per DP rank per step: micro-batch x micro-batches (pipelined)"
                   : "  # per DP rank per forward; gradient accumulation makes up the global batch")
      << "\n";
  out << "global_batch_size = " << f.global_batch << "\n";
  out << "seq_len = " << f.seq_len << "\n";
  out << "dataset = \"c4\"  # PLACEHOLDER: a dataset registered in torchtitan/datasets (c4 streams "
         "allenai/c4)\n";
  out << "# dataset_path = \"/path/to/c4\"  # PLACEHOLDER: a local copy of it, if you have one\n";
  out << "mixed_precision_param = \"bfloat16\"\n";
  out << "mixed_precision_reduce = \"float32\"  # gradients reduced in fp32, as priced\n";
  if (f.train_iters > 0) out << "steps = " << f.train_iters << "\n";
  out << "\n[parallelism]\n";
  out << "data_parallel_replicate_degree = " << dp.replicate << "\n";
  out << "data_parallel_shard_degree = " << dp.shard << "  # " << dp.note << "\n";
  out << "fsdp_reshard_after_forward = " << toml_str(dp.reshard) << "\n";
  out << "tensor_parallel_degree = " << p.tp << "\n";
  out << "enable_async_tensor_parallel = " << (f.tp_overlap ? "true" : "false")
      << (f.tp_overlap ? "  # TP collectives pipelined with the GEMMs, as priced (needs [compile])\n"
                       : "  # pplan prices TP communication without overlap\n");
  out << "context_parallel_degree = " << p.cp << "\n";
  if (p.cp > 1) {
    out << "context_parallel_rotate_method = \"alltoall\"  # pass K/V shards around the ring, as "
           "priced (default all-gather)\n";
  }
  out << "pipeline_parallel_degree = " << p.pp << "\n";
  if (p.pp > 1) {
    out << "pipeline_parallel_schedule = " << toml_str(pipe.schedule) << "\n";
    out << "pipeline_parallel_layers_per_stage = " << pipe.layers_per_stage << "\n";
    out << "pipeline_parallel_first_stage_less_layers = " << pipe.first_less << "\n";
    out << "pipeline_parallel_last_stage_less_layers = " << pipe.last_less << "\n";
    out << "pipeline_parallel_microbatch_size = " << p.micro_batch << "  # -> " << f.microbatches
        << " micro-batches\n";
  }
  if (f.moe) {
    out << "expert_parallel_degree = " << p.ep << "\n";
    out << "expert_tensor_parallel_degree = " << expert_tp(p) << "  # each expert split over etp, as priced\n";
  }
  out << "\n[activation_checkpoint]\n";
  out << "mode = " << toml_str(p.recompute == Recompute::kFull ? "full" : "none") << "\n";
  if (f.tp_overlap) {
    // 238fa995 job_config.py: async TP is "currently only effective when compile is enabled".
    out << "\n[compile]\n";
    out << "enable = true  # async TP needs it; it also fuses kernels pplan prices as eager\n";
    out << "components = [\"model\", \"loss\"]\n";
  }
  if (f.fp8) {
    // As torchtitan 238fa995 deepseek_v3_671b.toml / llama3_405b.toml, with the FSDP gathers in
    // bf16 as priced.
    out << "\n[quantize.linear.float8]\n";
    out << "enable_fsdp_float8_all_gather = false\n";
    out << "precompute_float8_dynamic_scale_for_fsdp = false\n";
    out << "filter_fqns = " << (deepseek ? "[\"output\", \"router.gate\"]" : "[\"output\"]")
        << "\n";
    if (deepseek) {
      out << "\n[quantize.grouped_mm.float8]\n";
      out << "fqns = [\"experts\"]\n";
    }
  }
  return out.str();
}

}  // namespace pplan::detail
