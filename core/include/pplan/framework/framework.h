#pragma once
/// The training stack. The same model runs at different speeds, and holds different memory, in
/// Megatron-Core, DeepSpeed or torchtitan: each framework sets the defaults of the switches in
/// TrainingSpec (specs.h), and the scenario may override each one (`training.<switch>`).
///
/// | switch               | megatron-core (NVIDIA recipes) | megatron-lm (pretrain_gpt.py) | deepspeed (Megatron-DeepSpeed) | torchtitan (FSDP2) |
/// |----------------------|--------------------|----------------------|---------------------|------------------|
/// | tp_comm_overlap      | on with SP [1]     | off [2]              | off [5]             | off [7]          |
/// | overlap_grad_reduce  | on [1]             | off [2]              | off, on with ZeRO-3 [6] | on [7]       |
/// | overlap_param_gather | on [1]             | off [2]              | off, on with ZeRO-3 [6] | on [7]       |
/// | grad_reduce_in_fp32  | off [1]            | on [3]               | off (bf16) [6]      | on [7]           |
/// | flash_attention      | on                 | on; off on Ampere [4] | off [5]            | on [7]           |
/// | host cost per kernel | fused TE kernels   | fused TE kernels     | eager PyTorch + apex [5] | eager PyTorch [7] |
/// | FP8 parameters (fp8_param_gather) | on with ZeRO >= 1 [8] | off [2] | none [5] | none [7] |
///
/// [1] NVIDIA-NeMo/Megatron-Bridge 067f987d src/megatron/bridge/recipes/common.py
///     `_pretrain_common` (distributed optimizer, overlap_grad_reduce, overlap_param_gather) and
///     perf_recipes/_common.py `_benchmark_common` (grad_reduce_in_fp32 = False); NeMo 2.0 llama
///     recipes set tp_comm_overlap = True with sequence parallelism (NVIDIA/NeMo 8cfedd72
///     nemo/collections/llm/recipes/llama3_70b.py).
/// [2] NVIDIA/Megatron-LM d98e8a64 megatron/training/arguments.py: --overlap-grad-reduce,
///     --overlap-param-gather and --tp-comm-overlap default off.
/// [3] same file: with --bf16, accumulate_allreduce_grads_in_fp32 is forced on (fp32 main grads).
/// [4] The Ampere runs pplan is validated against (Narayanan et al. 2021, Korthikanti et al.
///     2022) predate FlashAttention in Megatron: they used the fused scale-mask-softmax path.
/// [5] deepspeedai/Megatron-DeepSpeed 4efb479d megatron/arguments.py: --use-flash-attn-v2 off by
///     default, no TE userbuffers; its kernels are eager PyTorch with apex fusions.
/// [6] deepspeedai/DeepSpeed edaa7221 deepspeed/runtime/zero/config.py: overlap_comm defaults to
///     true only for stage 3; deepspeed/runtime/constants.py GRAD_ACCUM_DTYPE_DEFAULT = None, so
///     gradients accumulate in the model's dtype (bf16) unless data_types.grad_accum_dtype is set.
/// [7] pytorch/torchtitan b5bcd76c torchtitan/config/configs.py: mixed_precision_reduce float32,
///     compile (and so async TP) off by default; FSDP2 prefetches the next all-gather and overlaps
///     the reduce-scatter (torchtitan/distributed/fsdp.py); attention through SDPA (flash/cuDNN).
/// [8] NVIDIA-NeMo/Megatron-Bridge 067f987d src/megatron/bridge/training/mixed_precision.py: every
///     FP8 precision preset sets fp8_param_gather = True (NeMo 2.0's bf16_with_fp8_mixed set
///     fp8_params = True); Megatron needs the distributed optimizer for it (keeps_fp8_params).

#include <string_view>

#include "pplan/specs.h"

namespace pplan {

/// "megatron-core" | "megatron-lm" | "deepspeed" | "torchtitan".
const char* framework_name(Framework framework);

/// The framework a scenario runs on when it names none: Megatron-LM as the published Ampere
/// runs used it, NVIDIA's Megatron-Core recipes on Hopper and newer.
Framework default_framework(const GpuSpec& gpu);

/// The switches of `training` set to `framework`'s defaults (the fields above), for `gpu` and
/// `zero` (DeepSpeed's overlap depends on the ZeRO stage). Precision, sequence length, batch
/// and token budget are left as they are.
TrainingSpec with_framework_defaults(TrainingSpec training, Framework framework, const GpuSpec& gpu);

/// Whether a GeLU model without an explicit `dropout` trains with dropout under `framework`:
/// Megatron-LM's and Megatron-DeepSpeed's arguments.py default --hidden-dropout and
/// --attention-dropout to 0.1; NeMo's and Megatron-Bridge's GPT and Nemotron recipes set 0.0,
/// and torchtitan's models have none.
bool framework_default_dropout(Framework framework);

/// Whether DP communication overlaps compute for this ZeRO stage under the scenario's switches:
/// DeepSpeed overlaps only under ZeRO-3 unless overlap_comm is set; others follow the switch.
bool overlaps_grad_reduce(const TrainingSpec& training, int zero);

/// Whether the DP weight all-gather is hidden: the switch, or DeepSpeed's own ZeRO-3 prefetch
/// (overlap_comm is on by default for stage 3).
bool overlaps_param_gather(const TrainingSpec& training, int zero);

/// Whether the framework offloads whole layers' activations to host memory as pplan prices it
/// (parallel.offload_layers): Megatron-Core's CPU offloading (--cpu-offloading-num-layers), not
/// under its per-layer CUDA graphs (transformer_config.py:2800). torchtitan and DeepSpeed have none.
bool offloads_activations(const TrainingSpec& training);

/// Whether an FP8 plan keeps its weights in FP8 and gathers them so (--fp8-param-gather): as
/// training.fp8_param_gather says; if it says nothing, on for NVIDIA's recipes wherever Megatron
/// allows it, with the distributed optimizer (zero >= 1): every FP8 precision preset of
/// Megatron-Bridge sets it (067f987df src/megatron/bridge/training/mixed_precision.py) as NeMo
/// 2.0's bf16_with_fp8_mixed set fp8_params. Off for the other frameworks and for BF16.
bool keeps_fp8_params(const TrainingSpec& training, int zero);

/// Whether sharded data parallelism (ZeRO-2/3) syncs gradients and reshards weights only on the
/// last micro-batch of a step: FSDP2 under PyTorch's pipeline schedules does (pytorch/pytorch
/// torch/distributed/pipelining/stage.py backward_maybe_with_nosync: set_requires_gradient_sync
/// and set_reshard_after_backward off for all but the last micro-batch), so the gradients and
/// weights stay unsharded through the step.
bool defers_gradient_sync(const TrainingSpec& training, const ParallelConfig& parallel);

/// Bytes per element an MoE layer keeps of its k expert outputs for the router's gradient.
/// Megatron-Core applies the routing probabilities inside the experts' activation (Megatron-LM
/// d98e8a64 megatron/core/transformer/moe/experts.py:817, "Scaled activation") and its combine
/// is a plain sum (token_dispatcher.py:891 unpermute without probs): nothing kept. torchtitan
/// scales the expert outputs in fp32 after the experts (b5bcd76c
/// torchtitan/models/common/token_dispatcher.py:158): the fp32 copy, 4. DeepSpeed-MoE's combine
/// einsum keeps the bf16 outputs (deepspeed/moe/sharded_moe.py MOELayer.forward): 2.
double moe_expert_output_bytes_kept(Framework framework);

/// Kernels one transformer layer launches in its forward pass (the host's work, model/kernels.h):
/// Transformer Engine fuses norm+GEMM, bias+activation and attention (~12 launches); eager
/// PyTorch with apex fusions launches ~22 (Megatron-DeepSpeed's GPT block with dropout);
/// torchtitan's eager Llama block ~18.
double kernels_per_layer_forward(Framework framework);

/// Kernels the host launches per expert local to the GPU in one MoE layer's forward (the
/// backward launches twice as many: dgrad and wgrad). Megatron-Core's grouped experts run
/// Transformer Engine's GroupedLinear, whose only backend launches one cuBLAS GEMM per expert
/// (NVIDIA/TransformerEngine d0067d0 transformer_engine/pytorch/csrc/extensions/gemm.cpp,
/// te_general_grouped_gemm: "For now, we only have multi-stream cublas backend"), fc1 and fc2,
/// and under FP8 quantises each expert's input split (module/grouped_linear.py,
/// _split_quantize): 2, or 4 in FP8. DeepSpeed-MoE calls each local expert's MLP in a Python
/// loop (microsoft/DeepSpeed 0e4271ad deepspeed/moe/experts.py, Experts.forward): fc1, its
/// activation, fc2, 3. torchtitan runs all local experts in one torch._grouped_mm per
/// projection (pytorch/torchtitan 003edbe5 torchtitan/models/moe/moe.py,
/// _run_experts_grouped_mm, use_grouped_mm on by default): none per expert.
double kernels_per_local_expert_forward(Framework framework, bool fp8);

/**
 * Bytes streamed per element of the routed experts' [tokens·top_k, h] output to add their
 * second projection's bias (model.linear_bias), forward or backward. Megatron-Core adds it
 * outside the grouped GEMM, one local expert at a time in PyTorch (TEGroupedMLP._apply_bias,
 * the same in NVIDIA/Megatron-LM core_v0.16.0, core_v0.17.0, core_v0.18.0 and d98e8a64
 * megatron/core/transformer/moe/experts.py): b·p and t + b·p in fp32 (p, the routing
 * probabilities, is fp32), torch.cat, a cast back to bf16: forward 4 + (2 + 4 + 4) + (4 + 4) +
 * (4 + 2) = 28; backward the cast's gradient to fp32 and t's back to bf16 (6 + 6) and b's and
 * p's gradients, each an fp32 product written and summed (12 + 12): 36. Other frameworks: 0
 * (not priced).
 */
double expert_bias_bytes_per_element(Framework framework, bool backward);

/// Kernels that path launches per local expert in the forward (b·p, + t): 2 for Megatron.
double expert_bias_kernels_per_local_expert_forward(Framework framework);

/**
 * Bytes streamed per element of a clamped SwiGLU's [tokens, 2·width] input (model.activation
 * clamped_swiglu) beyond the fused activation itself, forward or backward. Megatron clamps
 * before its fused kernel (the same in NVIDIA/Megatron-LM core_v0.16.0 fused_bias_geglu.py
 * weighted_bias_quick_geglu_impl, experts.py and mlp.py): chunk, two clamps, torch.cat:
 * forward 2 + 2 (the clamps) + 2 + 2 (the cat) = 8; backward the clamps' gradients (read the
 * gradient and the input, write): 6; 3 kernels a layer. Other frameworks: 0 (not priced).
 */
double clamped_activation_bytes_per_element(Framework framework, bool backward);
double clamped_activation_kernels_forward(Framework framework);

/// Whether the host waits for the GPU before it launches the experts: Megatron-Core's token
/// dispatchers copy the token counts per expert to the host and synchronise before the
/// all-to-all (NVIDIA/Megatron-LM d98e8a64 megatron/core/transformer/moe/token_dispatcher.py,
/// cuda_sync_point "before_ep_alltoall"; "before_finish" without EP), so those launches cannot
/// run ahead of the GPU. DeepSpeed-MoE's dispatch has a fixed capacity shape and needs no
/// counts on the host; torchtitan launches nothing per expert.
bool syncs_host_before_experts(Framework framework);

}  // namespace pplan
