// DeepSpeed JSON config with Megatron-DeepSpeed flags. Keys: DeepSpeed edaa7221
// deepspeed/runtime/config.py, constants.py, zero/config.py; flags: Megatron-DeepSpeed
// 4efb479d megatron/arguments.py. What DeepSpeed cannot run as priced is refused in
// framework/rules.cpp.
#include <sstream>

#include "detail_launch.h"

namespace pplan::detail {

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
  out << "MASTER_ADDR=${MASTER_ADDR:-localhost}  # PLACEHOLDER on multi-node runs: node 0's "
         "address\n";
  out << "MASTER_PORT=${MASTER_PORT:-29500}\n";
  out << "NODE_RANK=${NODE_RANK:-0}\n";
  out << "# Hyperparameters (--lr etc.) are typical values: tune them.\n";
  out << "TRAIN_ITERS="
      << (f.train_iters > 0 ? num(f.train_iters) : "${TRAIN_ITERS:-1000}  # PLACEHOLDER") << "\n\n";
  out << "# train_batch_size = micro-batch x gradient_accumulation_steps x DP (DeepSpeed asserts "
         "it);\n";
  out << "# with a pipeline, gradient_accumulation_steps is the number of micro-batches per "
         "step.\n";
  const char* grad_dtype = f.grad_fp32 ? "fp32" : "bf16";
  out << "# Gradients accumulate and reduce in " << grad_dtype
      << " as priced (training.grad_reduce_in_fp32): communication_data_type\n";
  out << "# defaults to bf16 with bf16 on, and ZeRO accumulates in the model dtype unless "
         "data_types.grad_accum_dtype\n";
  out << "# says otherwise (engine.py get_data_types; without ZeRO only bf16 accumulation "
         "runs). overlap_comm as priced:\n";
  out << "# DeepSpeed's own default is on only for ZeRO-3 (zero/config.py).\n";
  out << "cat > ds_config.json <<'PPLAN_EOF'\n";
  out << "{\n";
  out << "  \"train_batch_size\": " << f.global_batch << ",\n";
  out << "  \"train_micro_batch_size_per_gpu\": " << p.micro_batch << ",\n";
  out << "  \"gradient_accumulation_steps\": " << f.microbatches << ",\n";
  out << "  \"gradient_clipping\": 1.0,\n";
  out << "  \"steps_per_print\": 10,\n";
  if (f.bf16_optimizer_state) {
    // bf16 master weights, gradients and Adam state on the GPU: 6 bytes per parameter, as priced
    // (docs/_pages/config-json.md; the rules require ZeRO >= 1 and bf16 gradients).
    out << "  \"bf16\": { \"enabled\": true, \"bf16_master_weights_and_grads\": true, "
           "\"bf16_optimizer_states\": true },\n";
  } else {
    out << "  \"bf16\": { \"enabled\": true },\n";
  }
  out << "  \"communication_data_type\": \"" << grad_dtype << "\",\n";
  if (p.zero >= 1) out << "  \"data_types\": { \"grad_accum_dtype\": \"" << grad_dtype << "\" },\n";
  out << "  \"zero_optimization\": {\n";
  out << "    \"stage\": " << p.zero << ",\n";
  out << "    \"overlap_comm\": " << (f.grad_overlap || f.param_overlap ? "true" : "false")
      << ",\n";
  out << "    \"contiguous_gradients\": true,\n";
  out << "    \"reduce_scatter\": true\n";
  out << "  },\n";
  out << "  \"wall_clock_breakdown\": false\n";
  out << "}\n";
  out << "PPLAN_EOF\n\n";
  // Megatron-DeepSpeed's tensor-parallel layers need in-order kernels (one hardware queue) for
  // their async gradient all-reduce; with tp 1 there is none, and one queue would serialise the
  // ZeRO collectives the plan overlaps with compute.
  if (p.tp > 1) {
    out << "export CUDA_DEVICE_MAX_CONNECTIONS=1  # Megatron's async TP communication relies on "
           "in-order kernels\n";
  }
  out << "torchrun --nproc_per_node " << f.nproc_per_node << " --nnodes " << f.nodes
      << " --node_rank \"$NODE_RANK\" --master_addr \"$MASTER_ADDR\" --master_port "
         "\"$MASTER_PORT\" \\\n";
  out << "    \"$MDS_DIR/pretrain_gpt.py\" \\\n";
  auto line = [&out](const std::string& text) { out << "    " << text << " \\\n"; };
  line("--tensor-model-parallel-size " + num(p.tp));
  line("--pipeline-model-parallel-size " + num(p.pp));
  if (f.sequence_parallel) line("--sequence-parallel");
  line("--num-layers " + num(model.layers));
  line("--hidden-size " + num(model.hidden));
  line("--ffn-hidden-size " + num(model.ffn_hidden));
  line("--num-attention-heads " + num(model.heads));
  if (model.head_dim > 0) line("--kv-channels " + num(model.head_dim));
  if (model.kv_heads < model.heads) line("--num-key-value-heads " + num(model.kv_heads));
  line("--seq-length " + num(f.seq_len));
  line("--max-position-embeddings " + num(f.seq_len));
  if (!model.learned_positions) {
    line("--use-rotary-position-embeddings");
    line("--rotary-position-embeddings-theta " + num(static_cast<long long>(model.rope_theta)));
    line("--normalization rmsnorm");
    line("--disable-bias-linear");
  }
  if (model.activation == Activation::kSwiglu) line("--swiglu");
  if (!model.tied_embeddings) line("--untie-embeddings-and-output-weights");
  if (!model.dropout) line("--hidden-dropout 0 --attention-dropout 0");
  line("--no-query-key-layer-scaling");
  if (f.fp8) {
    // FP8 runs only in Transformer Engine's layers (megatron/arguments.py: --fp8-hybrid needs
    // --transformer-impl transformer_engine; the rules admit pp 1, GPT-shaped models and
    // delayed scaling): DelayedScaling, HYBRID (E4M3 forward, E5M2 gradients).
    line("--transformer-impl transformer_engine --fp8-hybrid");
    line("--fp8-amax-history-len 1024 --fp8-amax-compute-algo max");
  } else if (f.flash_attention) {
    // The attention pplan prices: flash attention unless the scenario turns it off.
    line("--use-flash-attn-v2");
  }
  if (f.moe) {
    // DeepSpeed-MoE (megatron/arguments.py; megatron/model/transformer.py
    // get_num_experts_per_layer): one expert count per layer at --expert-interval 1.
    const MoeSpec& moe = *model.moe;
    const std::string experts = moe.dense_layers > 0 || moe.every > 1
                                    ? per_layer_experts(model, num(moe.experts), "1", " ")
                                    : num(moe.experts);
    line("--num-experts " + experts + " --expert-interval 1 --topk " + num(moe.top_k));
    line("--moe-expert-parallel-size " + num(p.ep));
    // pplan prices every routed token: no capacity limit, so nothing is dropped.
    line("--disable-moe-token-dropping --moe-loss-coeff 0.01");
    // ZeRO partitions expert and dense parameters apart (zero/stage_1_and_2.py asserts a
    // param group marked "moe").
    if (p.zero >= 1) line("--create-moe-param-group");
  }
  line("--make-vocab-size-divisible-by " + num(megatron_vocab_divisor(model, p.tp)));
  line("--micro-batch-size " + num(p.micro_batch));
  line("--global-batch-size " + num(f.global_batch));
  line("--train-iters \"$TRAIN_ITERS\"");
  if (p.recompute == Recompute::kSelective) line("--recompute-granularity selective");
  if (p.recompute == Recompute::kFull) {
    // Partial recompute (pp 1 only, the rules say): Megatron's block method.
    line(f.recompute_layers > 0
             ? "--recompute-granularity full --recompute-method block --recompute-num-layers " +
                   num(f.recompute_layers)
             : std::string(
                   "--recompute-granularity full --recompute-method uniform --recompute-num-layers "
                   "1"));
    // The pipeline engine checkpoints with deepspeed.checkpointing, which this flag sets up
    // (megatron/initialize.py; megatron/model/gpt_model.py activation_checkpoint_interval).
    if (p.pp > 1) line("--deepspeed-activation-checkpointing");
  }
  line("--bf16");
  line("--lr 1.5e-4 --min-lr 1.5e-5 --lr-decay-style cosine --lr-warmup-fraction 0.01");
  line("--weight-decay 0.1 --clip-grad 1.0 --adam-beta1 0.9 --adam-beta2 0.95");
  line("--data-path \"$DATA_PATH\" --data-impl mmap --split 99,1,0");
  if (gpt2_tokenizer(model, p.tp)) {
    line(
        "--tokenizer-type GPT2BPETokenizer --vocab-file \"$TOKENIZER_MODEL/vocab.json\" "
        "--merge-file \"$TOKENIZER_MODEL/merges.txt\"");
  } else {
    line("--tokenizer-type HFTokenizer --tokenizer-model \"$TOKENIZER_MODEL\"");
  }
  line("--log-interval 10 --eval-interval 1000 --eval-iters 10");
  if (p.pp == 1) line("--no-pipeline-parallel");
  out << "    --deepspeed --deepspeed_config ds_config.json --zero-stage " << p.zero << "\n";
  return out.str();
}

}  // namespace pplan::detail
