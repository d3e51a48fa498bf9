// NeMo 2.0 recipe overrides with a NeMo-Run SLURM executor. Recipes and their defaults: NeMo
// 8cfedd72 nemo/collections/llm/recipes/*.py; model configs: nemo/collections/llm/gpt/model/;
// strategy: nemo/lightning/pytorch/strategies/megatron_strategy.py; executor: NeMo-Run
// 0c491271 nemo_run/core/execution/slurm.py. Every plan-relevant value of the recipe is set
// explicitly, so what runs is the priced plan whatever the recipe's own defaults are.
#include <sstream>
#include <string_view>

#include "detail_launch.h"
#include "pplan/model/architecture.h"

namespace pplan::detail {

namespace {

const char* py_bool(bool value) { return value ? "True" : "False"; }

std::string py_int_or_none(bool has, long long value) { return has ? num(value) : "None"; }

/// NeMo's precision plugin for the priced FP8 recipe (recipes/precision/mixed_precision.py):
/// delayed scaling, per-tensor current scaling ("tensorwise"), subchannel = blockwise, MXFP8.
const char* nemo_precision(const LaunchFacts& f) {
  if (!f.fp8) return "bf16_mixed";
  switch (f.fp8_recipe) {
    case Fp8Recipe::kDelayed: return "bf16_with_fp8_mixed";
    case Fp8Recipe::kCurrent: return "bf16_with_fp8_current_scaling_mixed";
    case Fp8Recipe::kBlockwise: return "bf16_with_fp8_subchannel_scaling_mixed";
    case Fp8Recipe::kMxfp8: return "bf16_with_mxfp8_mixed";
    case Fp8Recipe::kNvfp4: break;  // refused before (launch.cpp, nemo.no_nvfp4)
  }
  return "bf16_with_fp8_mixed";
}

bool explicit_uneven(const StageSplit& split) {
  return split.uneven && split.chunk_layers == 0 && !split.embedding_counted && !split.loss_counted;
}

}  // namespace

std::string nemo_script(const Scenario& scenario, const Estimate& plan, const LaunchFacts& f) {
  const ParallelConfig& p = f.parallel;
  const ModelSpec& model = scenario.model;
  const NemoRecipe recipe = nemo_recipe(model);
  const std::string recipe_name = recipe.name;
  const bool deepseek = recipe.exact && recipe_name == "deepseek_v3";
  std::ostringstream out;
  auto set = [&out](std::string_view key, std::string_view value, std::string_view why = {}) {
    out << "recipe." << key << " = " << value;
    if (!why.empty()) out << "  # " << why;
    out << "\n";
  };
  out << plan_header(scenario, plan, f,
                     "NeMo 2.0 recipe overrides (nemo.collections.llm + NeMo-Run)");
  out << "# Save as pplan_nemo.py and run `python pplan_nemo.py` on a login node (NeMo-Run submits "
         "it).\n";
  out << "# For NeMo 8cfedd72 recipes and NeMo-Run 0c491271. Every plan value of the recipe is set "
         "below: its\n";
  out << "# own parallelism, callbacks and optimizer settings would run another plan. There is no "
         "`nemo llm\n";
  out << "# pretrain` one-liner: NeMo-Run's CLI cannot set the precision plugin and the "
         "callbacks.\n";
  out << "import nemo_run as run\n";
  out << "import torch\n";
  if (!recipe.exact) out << "import torch.nn.functional as F\n";
  if (!recipe.exact && model.activation == Activation::kGeglu) out << "from functools import partial\n";
  if (!recipe.exact && model.activation == Activation::kClampedSwiglu) {
    out << "from megatron.core.fusions.fused_bias_geglu import quick_gelu\n";
  }
  out << "from nemo.collections import llm\n";
  out << "from nemo.collections.common.tokenizers import AutoTokenizer\n";
  out << "from nemo.collections.llm.recipes.precision.mixed_precision import " << nemo_precision(f)
      << "\n";
  if (f.tp_overlap) {
    out << "from nemo.lightning.pytorch.callbacks.megatron_comm_overlap import "
           "MegatronCommOverlapCallback\n";
  }
  const bool set_callbacks = deepseek || f.tp_overlap;
  if (set_callbacks) out << "from nemo.utils.exp_manager import TimingCallback\n";
  out << "\n";
  out << "recipe = llm." << recipe_name << ".pretrain_recipe(\n";
  out << "    name=\"pplan\", dir=\"/path/to/checkpoints\",  # PLACEHOLDER\n";
  out << "    num_nodes=" << f.nodes << ", num_gpus_per_node=" << f.nproc_per_node
      << (deepseek ? (model.mtp_layers > 0 ? ", use_mtp=True" : ", use_mtp=False") : "") << ")\n";
  if (deepseek && model.mtp_layers > 0) {
    out << "# The DeepSeek recipe's multi-token prediction (depth 1) is the model pplan priced; its "
           "DeepEP\n";
    out << "# dispatcher callback, bf16 optimizer moments and recompute modules are undone "
           "below.\n";
  } else if (deepseek) {
    out << "# The DeepSeek recipe adds multi-token prediction, the DeepEP dispatcher callback, "
           "bf16 optimizer\n";
    out << "# moments and its own recompute modules, none of which pplan prices: all undone "
           "below.\n";
  }

  // The model.
  if (!recipe.exact) {
    out << "# " << comment_text(model.name) << " is not one of NeMo's recipes: " << recipe_name
        << "'s, with the architecture overridden.\n";
    const bool llama = !model.learned_positions;
    set("model.config.num_layers", num(model.layers));
    set("model.config.hidden_size", num(model.hidden));
    set("model.config.ffn_hidden_size", num(model.ffn_hidden));
    set("model.config.num_attention_heads", num(model.heads));
    set("model.config.num_query_groups", num(model.kv_heads));
    set("model.config.position_embedding_type", llama ? "\"rope\"" : "\"learned_absolute\"");
    set("model.config.normalization", llama ? "\"RMSNorm\"" : "\"LayerNorm\"");
    set("model.config.add_bias_linear", py_bool(!llama || model.linear_bias));
    if (model.linear_bias) set("model.config.add_qkv_bias", "True");
    const bool gated = gated_mlp(model.activation);
    set("model.config.gated_linear_unit", py_bool(gated));
    // GeGLU: the gate through GeLU (Gemma's tanh approximation; the same cost).
    set("model.config.activation_func", model.activation == Activation::kSwiglu ? "F.silu"
                                        : model.activation == Activation::kGeglu
                                            ? "partial(F.gelu, approximate=\"tanh\")"
                                        : model.activation == Activation::kClampedSwiglu ? "quick_gelu"
                                                                                         : "F.gelu");
    if (model.activation == Activation::kClampedSwiglu) {
      // gpt-oss's: gate·sigmoid(1.702·gate)·(up + 1), both clamped at 7 (Megatron-Bridge's
      // gpt_oss_bridge.py sets the same three).
      set("model.config.glu_linear_offset", "1.0", "gpt-oss's (up + 1)");
      set("model.config.activation_func_clamp_value", "7.0", "gpt-oss's clamp");
    }
    set("model.config.share_embeddings_and_output_weights", py_bool(model.tied_embeddings));
    if (model.head_dim > 0) set("model.config.kv_channels", num(model.head_dim), "the head width");
    if (model.qk_norm) set("model.config.qk_layernorm", "True");
    if (model.attention_sinks) set("model.config.softmax_type", "\"learnable\"", "a learned sink per head");
    if (model.local_attention) {
      // TE's window (left, right) is inclusive: W keys are (W - 1, 0).
      set("model.config.window_size", "(" + num(model.local_attention->tokens - 1) + ", 0)");
      if (model.local_attention->global_every > 0)
        set("model.config.window_attn_skip_freq", num(model.local_attention->global_every));
    }
  }
  if (!recipe.exact && model.mtp_layers > 0) set("model.config.mtp_num_layers", num(model.mtp_layers));
  set("model.config.seq_length", num(f.seq_len));
  // MockDataModule's GPT-2 tokenizer would otherwise set the vocabulary (gpt/model/base.py);
  // a preset vocab_size is used as is, without padding.
  set("model.config.vocab_size", num(static_cast<long long>(padded_vocab(model, p.tp))),
      "the padded vocabulary pplan prices");
  set("model.config.hidden_dropout", model.dropout ? "0.1" : "0.0");
  set("model.config.attention_dropout", model.dropout ? "0.1" : "0.0");
  if (!model.learned_positions)
    set("model.config.rotary_base", num(static_cast<long long>(model.rope_theta)));
  if (deepseek && model.mtp_layers == 0) set("model.config.mtp_num_layers", "None", "no multi-token prediction");
  if (f.moe) {
    const MoeSpec& moe = *model.moe;
    if (!recipe.exact) {
      set("model.config.num_moe_experts", num(moe.experts));
      set("model.config.moe_router_topk", num(moe.top_k));
      set("model.config.moe_ffn_hidden_size", num(moe.expert_ffn_hidden));
      set("model.config.moe_shared_expert_intermediate_size",
          moe.shared_experts > 0 ? num(1LL * moe.shared_experts * moe.expert_ffn_hidden) : "None");
      std::string freq = "1";
      if (moe.every > 1) {
        freq = "[" + per_layer_experts(model, "1", "0", ", ") + "]";
      } else if (moe.dense_layers > 0) {
        freq = "[0] * " + num(moe.dense_layers) + " + [1] * " + num(model.layers - moe.dense_layers);
      }
      set("model.config.moe_layer_freq", freq);
      set("model.config.moe_router_load_balancing_type", "\"aux_loss\"", "hyperparameter");
      set("model.config.moe_aux_loss_coeff", "1e-2", "hyperparameter");
    }
    set("model.config.moe_grouped_gemm", "True");
    const bool flex = scenario.training.moe_dispatcher == MoeDispatcher::kFlex;
    set("model.config.moe_token_dispatcher_type", flex ? "\"flex\"" : "\"alltoall\"",
        flex ? "DeepEP, as priced" : "the all-to-all pplan prices");
    if (flex && scenario.training.cuda_graphs) {
      // As the Megatron launch: the full-iteration graph's static shapes (HybridEP, a budget).
      set("model.config.moe_flex_dispatcher_backend", "\"hybridep\"");
      set("model.config.moe_expert_rank_capacity_factor", "1.5",
          "per-rank token budget the graph needs; HybridEP drops tokens beyond it");
    } else if (flex) {
      set("model.config.moe_flex_dispatcher_backend", "\"deepep\"");
    }
    set("model.config.moe_router_num_groups", moe.groups > 0 ? num(moe.groups) : "None");
    set("model.config.moe_router_group_topk", moe.groups > 0 ? num(moe.group_top_k) : "None");
    set("model.config.overlap_moe_expert_parallel_comm", py_bool(scenario.training.overlap_moe_expert_parallel_comm));
  }
  if (p.recompute == Recompute::kSelective) {
    set("model.config.recompute_granularity", "\"selective\"");
    set("model.config.recompute_method", "None");
    set("model.config.recompute_num_layers", "None");
    set("model.config.recompute_modules", "[" + recompute_module_list(p, model, "\"", ", ") + "]", "modules rerun, as priced");
  } else if (p.recompute == Recompute::kFull) {
    // Partial recompute as NeMo's performance scripts write it (scripts/performance/helpers.py
    // set_recompute_configs): method "block", the first N layers of every model chunk.
    const bool block = f.recompute_layers > 0;
    set("model.config.recompute_granularity", "\"full\"");
    set("model.config.recompute_method", block ? "\"block\"" : "\"uniform\"");
    set("model.config.recompute_num_layers", block ? num(f.recompute_layers) : "1",
        block ? "layers recomputed per model chunk" : "");
    set("model.config.recompute_modules", "None");
  } else {
    set("model.config.recompute_granularity", "None");
    set("model.config.recompute_method", "None");
    set("model.config.recompute_num_layers", "None");
    set("model.config.recompute_modules", "None");
  }

  // Data and steps. Real data, never the recipe's MockDataModule (NeMo 8cfedd72
  // recipes/llama3_8b.py:190): PreTrainingDataModule (gpt/data/pre_training.py:170) over a
  // Megatron-format corpus, with the model's tokenizer (without one it would be GPT-2's, :260).
  out << "# Real data instead of the recipe's MockDataModule (random tokens).\n";
  out << "recipe.data = run.Config(\n";
  out << "    llm.PreTrainingDataModule,\n";
  out << "    paths=[\"/path/to/corpus_text_document\"],  # PLACEHOLDER: prefixes of Megatron "
         ".bin/.idx files (weights may precede them)\n";
  out << "    tokenizer=run.Config(AutoTokenizer, pretrained_model_name=\"PLACEHOLDER_HF_TOKENIZER\"),  "
         "# PLACEHOLDER: the model's Hugging Face id or a local copy\n";
  out << ")\n";
  set("data.seq_length", num(f.seq_len));
  set("data.global_batch_size", num(f.global_batch));
  set("data.micro_batch_size", num(p.micro_batch), num(f.microbatches) + " micro-batches per step");
  set("trainer.max_steps", f.train_iters > 0 ? num(f.train_iters) : "1000",
      f.train_iters > 0 ? "" : "PLACEHOLDER");

  // Parallelism (MegatronStrategy).
  set("trainer.strategy.tensor_model_parallel_size", num(p.tp));
  set("trainer.strategy.pipeline_model_parallel_size", num(p.pp));
  set("trainer.strategy.virtual_pipeline_model_parallel_size", p.vpp > 1 ? num(p.vpp) : "None");
  set("trainer.strategy.context_parallel_size", num(p.cp));
  set("trainer.strategy.sequence_parallel", py_bool(f.sequence_parallel));
  set("trainer.strategy.expert_model_parallel_size", num(p.ep));
  set("trainer.strategy.expert_tensor_parallel_size", f.moe ? num(expert_tp(p)) : "None",
      f.moe ? "each expert split over etp, as priced" : "");
  if (p.pp > 1) set("trainer.strategy.pipeline_dtype", "torch.bfloat16");
  const StageSplit& split = plan.split;
  const bool uneven = p.pp > 1 && explicit_uneven(split);
  set("trainer.strategy.num_layers_in_first_pipeline_stage",
      py_int_or_none(uneven, split.first_layers));
  set("trainer.strategy.num_layers_in_last_pipeline_stage",
      py_int_or_none(uneven, split.last_layers));
  set("trainer.strategy.account_for_embedding_in_pipeline_split",
      py_bool(p.pp > 1 && split.embedding_counted));
  set("trainer.strategy.account_for_loss_in_pipeline_split",
      py_bool(p.pp > 1 && split.loss_counted));
  if (p.pp > 1 && split.chunk_layers > 0) {
    // Megatron's layout (E, t, m, L and |: no quote or backslash to escape).
    set("trainer.strategy.pipeline_model_parallel_layout",
        "\"" + pipeline_layout(split, p.pp, p.vpp, scenario.model.mtp_layers) + "\"",
        "chunks of " + num(split.chunk_layers) + " layers, the rest in the last");
  }
  if (f.megatron_fsdp) {
    set("trainer.strategy.fsdp", "\"megatron\"", "ZeRO-" + num(p.zero) + " = Megatron-FSDP");
    set("trainer.strategy.ddp.data_parallel_sharding_strategy",
        p.zero == 2 ? "\"optim_grads\"" : "\"optim_grads_params\"");
    set("trainer.strategy.ddp.average_in_collective", "False",
        "not supported by Megatron-FSDP (recipes/llama3_8b.py)");
    set("trainer.strategy.save_ckpt_format", "\"fsdp_dtensor\"");
  }
  // The resolved training switches (framework/framework.h), as priced.
  set("trainer.strategy.ddp.overlap_grad_reduce", py_bool(f.grad_overlap));
  set("trainer.strategy.ddp.overlap_param_gather", py_bool(f.param_overlap));
  set("trainer.strategy.ddp.grad_reduce_in_fp32", py_bool(f.grad_fp32),
      f.grad_fp32 ? "fp32 gradients, as priced" : "bf16 gradients, as priced");
  if (p.offload_layers > 0) {
    // Megatron-Core's ModelParallelConfig (model_parallel_config.py:458-474), as the
    // Megatron-Bridge Llama 3 70B GB300 recipes set it: activations offloaded, weights not.
    set("model.config.cpu_offloading", "True", "the first layers' activations kept in host memory, as priced");
    set("model.config.cpu_offloading_num_layers", std::to_string(p.offload_layers));
    set("model.config.cpu_offloading_activations", "True");
    set("model.config.cpu_offloading_weights", "False");
  }
  if (f.activation_fp8_store) {
    set("model.config.activation_func_fp8_input_store", "True", "SwiGLU's input kept in FP8, as priced");
  }
  if (f.cuda_graphs) {
    // As NeMo 8cfedd72 scripts/performance/helpers.py set_cuda_graph_configs.
    if (f.moe) {
      set("model.config.cuda_graph_impl", "\"full_iteration\"", "one graph for forward and backward, as priced");
    } else {
      set("model.config.enable_cuda_graph", "True", "per-layer CUDA graphs, as priced");
    }
    set("trainer.strategy.use_te_rng_tracker", "True", "required by CUDA graphs");
  }

  // Optimizer: fp32 master weights, gradients and moments (what pplan's 12 bytes/param count),
  // or bf16 moments in Megatron-Core's precision-aware optimizer, whose fp32 main params keep
  // only the 16 bits the bf16 weights lack (store_param_remainders: 6 bytes, memory.h).
  const char* moments = f.bf16_optimizer_state ? "torch.bfloat16" : "torch.float32";
  set("optim.config.use_distributed_optimizer", py_bool(p.zero >= 1));
  set("optim.config.use_precision_aware_optimizer", py_bool(f.bf16_optimizer_state));
  set("optim.config.main_params_dtype", "torch.float32");
  set("optim.config.main_grads_dtype", "torch.float32");
  set("optim.config.exp_avg_dtype", moments);
  set("optim.config.exp_avg_sq_dtype", moments);
  if (set_callbacks) {
    // TP overlap needs the callback that initialises Transformer Engine's userbuffers (NeMo
    // 8cfedd72 nemo/lightning/pytorch/callbacks/megatron_comm_overlap.py); its own DP overlap
    // defaults are overridden with the priced ones.
    std::string callbacks = "[run.Config(TimingCallback)";
    if (f.tp_overlap) {
      callbacks += ", run.Config(MegatronCommOverlapCallback, tp_comm_overlap=True, "
                   "overlap_grad_reduce=" +
                   std::string(py_bool(f.grad_overlap)) +
                   ", overlap_param_gather=" + py_bool(f.param_overlap) + ")";
    }
    callbacks += "]";
    set("trainer.callbacks", callbacks,
        deepseek ? "the recipe's DeepEP and communication-overlap callbacks change the plan"
                 : "TP communication overlapped with the GEMMs, as priced");
  }
  set("trainer.plugins", std::string(nemo_precision(f)) + "()");
  set("trainer.plugins.grad_reduce_in_fp32", py_bool(f.grad_fp32));
  if (f.fp8) {
    // As priced (memory.h): FP8 parameters gathered in FP8, or bf16 weights beside Transformer
    // Engine's FP8 copies; no reuse of the gradient buffer for the MXFP8 gather either way.
    if (f.fp8_attention) {
      set("trainer.plugins.fp8_dot_product_attention", "True", "attention's matmuls in FP8, as priced");
    }
    set("trainer.plugins.fp8_param_gather", py_bool(f.fp8_params),
        f.fp8_params ? "FP8 weights, gathered in FP8, as priced" : "bf16 weight all-gather, as priced");
    if (f.fp8_recipe == Fp8Recipe::kCurrent)
      set("trainer.plugins.first_last_layers_bf16", "False", "every layer in FP8, as priced");
    if (f.fp8_recipe == Fp8Recipe::kMxfp8)
      set("trainer.plugins.reuse_grad_buf_for_mxfp8_param_ag", "False");
  }
  out << "\n";
  // NeMo-Run's SlurmExecutor defaults to time="00:10:00": the job would be killed after ten
  // minutes.
  out << "executor = run.SlurmExecutor(\n";
  out << "    account=\"PLACEHOLDER_ACCOUNT\", partition=\"PLACEHOLDER_PARTITION\",\n";
  out << "    time=\"04:00:00\",  # PLACEHOLDER: wall-clock limit (NeMo-Run's default is 10 "
         "minutes)\n";
  out << "    nodes=" << f.nodes << ", ntasks_per_node=" << f.nproc_per_node
      << ", gpus_per_node=" << f.nproc_per_node << ", mem=\"0\", exclusive=True,\n";
  if (!slurm_segment_line(f).empty()) {
    out << "    segment=" << f.nodes_per_domain
        << ",  # #SBATCH --segment: each NVLink domain's nodes in one block (--format slurm)\n";
  }
  out << "    container_image=\"PLACEHOLDER_NEMO_CONTAINER\",  # e.g. nvcr.io/nvidia/nemo:YY.MM\n";
  out << "    tunnel=run.LocalTunnel(job_dir=\"/path/to/nemo-run-jobs\"),  # PLACEHOLDER\n";
  // SlurmExecutor packages the working directory with git by default (NeMo-Run 9339e12
  // slurm.py:334), and stops outside a git checkout (slurm.py:638-645); NeMo is in the container.
  out << "    packager=run.Packager(),  # the code is in the container: nothing to package (no git "
         "checkout needed)\n";
  out << "    env_vars={\n";
  for (const EnvVar& v : environment(f)) {
    if (v.kind != EnvVar::Kind::kExport) continue;
    out << "        " << python_str(v.name) << ": " << python_str(v.value) << ",\n";
  }
  out << "    },\n";
  out << ")\n";
  out << "run.run(recipe, executor=executor, name=\"pplan\")\n";
  return out.str();
}

}  // namespace pplan::detail
