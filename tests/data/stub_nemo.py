"""Stub of NeMo 2.0's recipes and NeMo-Run's config objects, for loading pplan's NeMo scripts.

Written from the sources (not copied), Python standard library only:
  NVIDIA/NeMo 8cfedd720346 (2025-09-20)
    nemo/collections/llm/recipes/{llama3_8b,llama3_70b,llama31_405b,gpt3_175b,mixtral_8x7b,
      deepseek_v3,deepseek}.py      trainer() and pretrain_recipe() defaults
    nemo/collections/llm/recipes/optim/adam.py  distributed_fused_adam_with_cosine_annealing
    nemo/collections/llm/recipes/precision/mixed_precision.py  bf16_mixed, bf16_with_fp8_mixed,
      bf16_with_mxfp8_mixed
    nemo/collections/llm/gpt/model/{base,llama,mixtral,deepseek}.py  model config defaults
    nemo/collections/llm/gpt/data/mock.py  MockDataModule
    nemo/collections/llm/gpt/data/pre_training.py:170-199  PreTrainingDataModule
    nemo/collections/common/tokenizers/huggingface/auto_tokenizer.py:34-51  AutoTokenizer
    nemo/lightning/pytorch/strategies/megatron_strategy.py  MegatronStrategy parameters
    nemo/lightning/pytorch/plugins/mixed_precision.py  MegatronMixedPrecision parameters
  NVIDIA/Megatron-LM d98e8a64ddf3: TransformerConfig, DistributedDataParallelConfig and
    OptimizerConfig field names and defaults (the fields pplan sets)
  NVIDIA/NeMo-Run 0c49127199ca: SlurmExecutor fields (time defaults to "00:10:00"), LocalTunnel;
    NVIDIA-NeMo/Run 9339e127cda1 nemo_run/core/packaging/base.py:26-50 Packager (exported by
    nemo_run/__init__.py:34); slurm.py:334 (git packaging by default), 638-645 (git rev-parse)

run.Config / run.Partial behave like NeMo-Run's (fiddle) buildables: attributes are the target's
parameters, unset ones read as the target's defaults, and setting an unknown one fails.
install() registers the stub modules under their real names.
"""

import sys
import types

NEMO_COMMIT = "8cfedd720346"
NEMO_RUN_COMMIT = "0c49127199ca"


class NemoError(ValueError):
    pass


# ---- torch (only what the scripts name) -------------------------------------------------

class _DType:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "torch." + self.name


torch = types.ModuleType("torch")
torch.bfloat16, torch.float32, torch.float16 = _DType("bfloat16"), _DType("float32"), _DType("float16")
torch.half = torch.float16
torch_nn = types.ModuleType("torch.nn")
torch_functional = types.ModuleType("torch.nn.functional")


def silu(x):
    return x


def gelu(x):
    return x


torch_functional.silu, torch_functional.gelu = silu, gelu
torch.nn, torch_nn.functional = torch_nn, torch_functional


# ---- buildables ---------------------------------------------------------------------------

class Target:
    """A class or function a Config builds: its parameters and their defaults."""

    def __init__(self, name, params):
        self.name, self.params = name, dict(params)

    def __repr__(self):
        return self.name


class Config:
    def __init__(self, target, **kwargs):
        if not isinstance(target, Target):
            raise NemoError(f"run.Config of an unknown target {target!r}")
        object.__setattr__(self, "_target", target)
        object.__setattr__(self, "_values", {})
        for k, v in kwargs.items():
            setattr(self, k, v)

    def __setattr__(self, name, value):
        if name not in self._target.params:
            raise AttributeError(f"{self._target.name} has no parameter {name!r}")
        self._values[name] = value

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        values = object.__getattribute__(self, "_values")
        target = object.__getattribute__(self, "_target")
        if name in values:
            return values[name]
        if name in target.params:
            return target.params[name]
        raise AttributeError(f"{target.name} has no parameter {name!r}")

    def __eq__(self, other):
        return isinstance(other, Config) and self._target is other._target and self.resolved() == other.resolved()

    def __repr__(self):
        return f"Config({self._target.name}, {self._values})"

    def resolved(self):
        """Every parameter's value (set or default)."""
        return {k: self._values.get(k, d) for k, d in self._target.params.items()}


class Partial(Config):
    pass


# ---- Megatron-Core configs (the fields pplan touches, d98e8a64 defaults) ---------------------

TRANSFORMER = dict(
    num_layers=0, hidden_size=0, ffn_hidden_size=None, num_attention_heads=0, num_query_groups=None,
    kv_channels=None, hidden_dropout=0.1, attention_dropout=0.1, add_bias_linear=True, gated_linear_unit=False,
    activation_func=gelu, normalization="LayerNorm", layernorm_epsilon=1e-5, layernorm_zero_centered_gamma=False,
    init_method_std=0.02, num_moe_experts=None, moe_router_topk=2, moe_ffn_hidden_size=None,
    moe_shared_expert_intermediate_size=None, moe_layer_freq=1, moe_router_load_balancing_type="aux_loss",
    moe_aux_loss_coeff=0.0, moe_grouped_gemm=False, moe_token_dispatcher_type="allgather",
    moe_router_pre_softmax=False, moe_router_num_groups=None, moe_router_group_topk=None,
    moe_router_topk_scaling_factor=None, moe_router_score_function="softmax", moe_router_enable_expert_bias=False,
    moe_router_bias_update_rate=1e-3, moe_router_dtype=None, moe_shared_expert_overlap=False, moe_permute_fusion=False,
    moe_flex_dispatcher_backend="deepep", overlap_moe_expert_parallel_comm=False,
    recompute_granularity=None, recompute_method=None, recompute_num_layers=None, recompute_modules=None,
    mtp_num_layers=None, mtp_loss_scaling_factor=None, bf16=False, params_dtype=torch.float32,
    bias_activation_fusion=False, masked_softmax_fusion=False, persist_layer_norm=False, bias_dropout_fusion=False,
    apply_rope_fusion=False, gradient_accumulation_fusion=True, cross_entropy_loss_fusion=False, qk_layernorm=False,
    num_layers_in_first_pipeline_stage=None, num_layers_in_last_pipeline_stage=None,
    account_for_embedding_in_pipeline_split=False, account_for_loss_in_pipeline_split=False,
)
# nemo/collections/llm/gpt/model/base.py GPTConfig
GPT = dict(TRANSFORMER, fp16_lm_cross_entropy=False, parallel_output=True, share_embeddings_and_output_weights=True,
           make_vocab_size_divisible_by=128, position_embedding_type="learned_absolute", rotary_base=10000,
           rotary_percent=1.0, seq_len_interpolation_factor=None, seq_length=1024, vocab_size=None,
           use_transformer_engine_full_layer_spec=False, tp_comm_overlap_cfg=None, max_position_embeddings=None)
GPT_175B = dict(GPT, seq_length=2048, num_layers=96, hidden_size=12288, ffn_hidden_size=49152, num_attention_heads=96,
                hidden_dropout=0.0, attention_dropout=0.0, bias_activation_fusion=True, bias_dropout_fusion=True,
                use_transformer_engine_full_layer_spec=True, layernorm_zero_centered_gamma=True)
# llama.py LlamaConfig / Llama3Config / Llama31Config and the sizes
LLAMA = dict(GPT, normalization="RMSNorm", activation_func=silu, gated_linear_unit=True, position_embedding_type="rope",
             add_bias_linear=False, seq_length=4096, attention_dropout=0.0, hidden_dropout=0.0,
             share_embeddings_and_output_weights=False, bias_activation_fusion=True, masked_softmax_fusion=True,
             persist_layer_norm=True, bias_dropout_fusion=True, apply_rope_fusion=True)
LLAMA3 = dict(LLAMA, num_query_groups=8, init_method_std=0.01, layernorm_epsilon=1.0e-05, rotary_percent=1.0)
LLAMA3_8B = dict(LLAMA3, rotary_base=500000, seq_length=8192, num_layers=32, hidden_size=4096, ffn_hidden_size=14336,
                 num_attention_heads=32)
LLAMA3_70B = dict(LLAMA3, rotary_base=500000, seq_length=8192, num_layers=80, hidden_size=8192, ffn_hidden_size=28672,
                  num_attention_heads=64, init_method_std=0.008944, make_vocab_size_divisible_by=128)
LLAMA31 = dict(LLAMA3, scale_factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0, old_context_len=8192,
               init_method_std=0.02)
LLAMA31_405B = dict(LLAMA31, rotary_base=500000, seq_length=131072, num_layers=126, hidden_size=16384,
                    ffn_hidden_size=53248, num_attention_heads=128, make_vocab_size_divisible_by=128)
# mixtral.py MixtralConfig / MixtralConfig8x7B
MIXTRAL_8X7B = dict(GPT, normalization="RMSNorm", activation_func=silu, position_embedding_type="rope",
                    add_bias_linear=False, gated_linear_unit=True, num_layers=32, hidden_size=4096,
                    num_attention_heads=32, num_query_groups=8, ffn_hidden_size=14336, max_position_embeddings=4096,
                    seq_length=4096, attention_dropout=0.0, hidden_dropout=0.0,
                    share_embeddings_and_output_weights=False, num_moe_experts=8, moe_aux_loss_coeff=0.01,
                    moe_router_topk=2, moe_router_pre_softmax=False, moe_token_dispatcher_type="alltoall",
                    moe_router_load_balancing_type="aux_loss", init_method_std=0.02, layernorm_epsilon=1e-5,
                    rotary_percent=1.0, rotary_base=1000000.0, bf16=True, params_dtype=torch.bfloat16,
                    apply_rope_fusion=True, bias_activation_fusion=True, bias_dropout_fusion=True,
                    masked_softmax_fusion=False)
# deepseek.py DeepSeekConfig / DeepSeekV3Config (MLA)
DEEPSEEK_V3 = dict(GPT, normalization="RMSNorm", activation_func=silu, gated_linear_unit=True,
                   position_embedding_type="rope", add_bias_linear=False, share_embeddings_and_output_weights=False,
                   num_attention_heads=128, kv_channels=128, max_position_embeddings=4096, seq_length=4096,
                   rotary_base=10000.0, make_vocab_size_divisible_by=1280, mtp_num_layers=None,
                   mtp_loss_scaling_factor=None, attention_dropout=0.0, hidden_dropout=0.0, qk_layernorm=True,
                   moe_grouped_gemm=True, moe_router_pre_softmax=True, moe_token_dispatcher_type="alltoall",
                   moe_router_load_balancing_type="seq_aux_loss", moe_shared_expert_overlap=True,
                   moe_router_dtype="fp32", q_lora_rank=1536, kv_lora_rank=512, qk_head_dim=128,
                   qk_pos_emb_head_dim=64, v_head_dim=128, rotary_scaling_factor=40, mscale=1.0, mscale_all_dim=1.0,
                   init_method_std=0.006, layernorm_epsilon=1e-6, bf16=True, params_dtype=torch.bfloat16,
                   num_layers=61, hidden_size=7168, ffn_hidden_size=18432, num_moe_experts=256,
                   moe_ffn_hidden_size=2048, moe_shared_expert_intermediate_size=2048,
                   moe_layer_freq=[0] * 3 + [1] * 58, moe_router_topk=8, moe_router_num_groups=8,
                   moe_router_group_topk=4, moe_router_topk_scaling_factor=2.5, moe_aux_loss_coeff=1e-4,
                   moe_router_score_function="sigmoid", moe_router_enable_expert_bias=True,
                   moe_router_bias_update_rate=1e-3)

GPTConfig175B = Target("GPTConfig175B", GPT_175B)
Llama3Config8B = Target("Llama3Config8B", LLAMA3_8B)
Llama3Config70B = Target("Llama3Config70B", LLAMA3_70B)
Llama31Config405B = Target("Llama31Config405B", LLAMA31_405B)
MixtralConfig8x7B = Target("MixtralConfig8x7B", MIXTRAL_8X7B)
DeepSeekV3Config = Target("DeepSeekV3Config", DEEPSEEK_V3)

MODEL = dict(config=None, optim=None, tokenizer=None, model_transform=None)
GPTModel, LlamaModel = Target("GPTModel", MODEL), Target("LlamaModel", MODEL)
MixtralModel, DeepSeekModel = Target("MixtralModel", MODEL), Target("DeepSeekModel", MODEL)

DistributedDataParallelConfig = Target("DistributedDataParallelConfig", dict(
    grad_reduce_in_fp32=False, overlap_grad_reduce=False, overlap_param_gather=False, align_param_gather=False,
    use_distributed_optimizer=False, num_distributed_optimizer_instances=1, check_for_nan_in_grad=False,
    check_for_large_grads=False, bucket_size=None, average_in_collective=False, use_megatron_fsdp=False,
    use_custom_fsdp=False, data_parallel_sharding_strategy="no_shard", nccl_ub=False, fsdp_double_buffer=False))
OptimizerConfig = Target("OptimizerConfig", dict(
    optimizer="adam", lr=None, min_lr=None, weight_decay=0.01, fp16=False, bf16=False, params_dtype=torch.float32,
    use_precision_aware_optimizer=False, main_grads_dtype=torch.float32, main_params_dtype=torch.float32,
    exp_avg_dtype=torch.float32, exp_avg_sq_dtype=torch.float32, adam_beta1=0.9, adam_beta2=0.999, adam_eps=1e-08,
    use_distributed_optimizer=False, clip_grad=1.0))

# ---- NeMo lightning -----------------------------------------------------------------------

MegatronStrategy = Target("MegatronStrategy", dict(
    tensor_model_parallel_size=1, pipeline_model_parallel_size=1, pipeline_model_parallel_comm_backend=None,
    num_layers_in_first_pipeline_stage=None, num_layers_in_last_pipeline_stage=None,
    virtual_pipeline_model_parallel_size=None, microbatch_group_size_per_vp_stage=None, context_parallel_size=1,
    sequence_parallel=False, expert_model_parallel_size=1, moe_extended_tp=False, expert_tensor_parallel_size=None,
    encoder_tensor_model_parallel_size=0, encoder_pipeline_model_parallel_size=0,
    account_for_embedding_in_pipeline_split=False, account_for_loss_in_pipeline_split=False, data_sampler=None,
    parallel_devices=None, cluster_environment=None, checkpoint_io=None, find_unused_parameters=False,
    ckpt_load_optimizer=True, ckpt_save_optimizer=True, ckpt_load_main_params=False, ddp="megatron", fsdp=None,
    lazy_init=False, pipeline_dtype=None, use_te_rng_tracker=False, use_sharp=False, save_ckpt_format="torch_dist",
    ckpt_async_save=True, ckpt_torch_dist_multiproc=None, ckpt_assume_constant_structure=False,
    ckpt_parallel_save=True, ckpt_parallel_save_within_dp=False, ckpt_parallel_load=True,
    ckpt_parallel_save_optim=True, ckpt_load_directly_on_device=True, ckpt_load_strictness=None,
    setup_optimizers=True, init_model_parallel=True, replace_progress_bar=True, progress_interval=1,
    restore_config=None, megatron_log_level=0, use_tp_pp_dp_mapping=False, num_distributed_optimizer_instances=1,
    nccl_communicator_config_path=None, pipeline_model_parallel_layout=None, use_gloo_process_groups=True,
    gradient_as_bucket_view=False))  # the last one reaches DDPStrategy through **kwargs
MegatronMixedPrecision = Target("MegatronMixedPrecision", dict(
    precision=None, params_dtype=None, pipeline_dtype=None, autocast_dtype=None, autocast_enabled=False,
    grad_reduce_in_fp32=True, fp8=None, fp8_recipe="delayed", first_last_layers_bf16=False, fp8_margin=0,
    fp8_amax_history_len=1, fp8_amax_compute_algo="most_recent", fp8_wgrad=True, fp8_dot_product_attention=False,
    fp8_multi_head_attention=False, fp8_params=None, fp8_param_gather=None, fp4=None, fp4_recipe="nvfp4",
    fp16_loss_scale=None, fp16_initial_loss_scale=4294967296, fp16_min_loss_scale=1.0,
    fp16_loss_scale_window=1000, fp16_hysteresis=2, num_layers_at_start_in_bf16=0, num_layers_at_end_in_bf16=0,
    reuse_grad_buf_for_mxfp8_param_ag=False))
Trainer = Target("Trainer", dict(
    accelerator="auto", accumulate_grad_batches=1, callbacks=None, devices="auto", limit_test_batches=None,
    limit_val_batches=None, log_every_n_steps=None, max_steps=-1, num_nodes=1, plugins=None, strategy="auto",
    use_distributed_sampler=True, val_check_interval=None, num_sanity_val_steps=None))
MockDataModule = Target("MockDataModule", dict(
    seq_length=2048, tokenizer=None, micro_batch_size=4, global_batch_size=8, rampup_batch_size=None,
    num_train_samples=10_000_000, num_val_samples=10_000, num_test_samples=10_000, num_workers=8, pin_memory=True,
    persistent_workers=False, create_attention_mask=False, vocab_file=None, merges_file=None))
# `paths` is required in NeMo (no default); None here only marks it unset.
PreTrainingDataModule = Target("PreTrainingDataModule", dict(
    paths=None, seq_length=2048, tokenizer=None, micro_batch_size=4, global_batch_size=8, rampup_batch_size=None,
    num_workers=8, pin_memory=True, persistent_workers=False, reset_position_ids=False, create_attention_mask=False,
    reset_attention_mask=False, eod_mask_loss=False, seed=1234, split="900,50,50", index_mapping_dir=None,
    num_dataset_builder_threads=1, num_train_samples=None, num_val_samples=None, num_test_samples=None,
    dataloader_type="single", init_consumed_samples=0, init_global_step=0, output_log=True, dataset_cls="GPTDataset",
    mmap_bin_files=True, object_storage_cache_path=None))
# `pretrained_model_name` is required in NeMo; None here only marks it unset.
AutoTokenizer = Target("AutoTokenizer", dict(
    pretrained_model_name=None, vocab_file=None, merges_file=None, mask_token=None, bos_token=None, eos_token=None,
    pad_token=None, sep_token=None, cls_token=None, unk_token=None, additional_special_tokens=[], use_fast=True,
    trust_remote_code=False, include_special_tokens=False, chat_template=None))
MegatronOptimizerModule = Target("MegatronOptimizerModule", dict(config=None, lr_scheduler=None))
CosineAnnealingScheduler = Target("CosineAnnealingScheduler", dict(warmup_steps=750, constant_steps=0, min_lr=None))
TimingCallback = Target("TimingCallback", {})
DeepEPCallback = Target("DeepEPCallback", {})
GarbageCollectionCallback = Target("GarbageCollectionCallback", dict(gc_interval_train=0, gc_interval_val=0))
# nemo/lightning/pytorch/callbacks/megatron_comm_overlap.py MegatronCommOverlapCallback.__init__
MegatronCommOverlapCallback = Target("MegatronCommOverlapCallback", dict(
    tp_comm_overlap=None, tp_comm_overlap_cfg=None, tp_comm_bootstrap_backend=None, overlap_p2p_comm=None,
    batch_p2p_comm=None, overlap_grad_reduce=None, overlap_param_gather=None,
    overlap_param_gather_with_optimizer_step=None, align_param_gather=None, bucket_size=None,
    defer_embedding_wgrad_compute=None, wgrad_deferral_limit=None))
pretrain = Target("pretrain", dict(model=None, data=None, trainer=None, log=None, resume=None, optim=None))


def bf16_mixed():
    return Config(MegatronMixedPrecision, precision="bf16-mixed", params_dtype=torch.bfloat16,
                  pipeline_dtype=torch.bfloat16, autocast_enabled=False, grad_reduce_in_fp32=True)


def bf16_with_fp8_mixed():
    cfg = bf16_mixed()
    cfg.fp8, cfg.fp8_recipe, cfg.fp8_margin = "hybrid", "delayed", 0
    cfg.fp8_amax_history_len, cfg.fp8_amax_compute_algo, cfg.fp8_param_gather = 1024, "max", True
    return cfg


def bf16_with_mxfp8_mixed():
    cfg = bf16_mixed()
    cfg.fp8, cfg.fp8_recipe, cfg.fp8_param_gather = "hybrid", "mxfp8", True
    cfg.reuse_grad_buf_for_mxfp8_param_ag = True
    return cfg


def bf16_with_fp8_current_scaling_mixed():
    cfg = bf16_mixed()
    cfg.fp8, cfg.fp8_recipe, cfg.first_last_layers_bf16 = "hybrid", "tensorwise", True
    cfg.num_layers_at_start_in_bf16, cfg.num_layers_at_end_in_bf16, cfg.fp8_param_gather = 1, 1, True
    return cfg


def bf16_with_fp8_subchannel_scaling_mixed():
    cfg = bf16_mixed()
    cfg.fp8, cfg.fp8_recipe, cfg.fp8_param_gather = "hybrid", "blockwise", False
    return cfg


def distributed_fused_adam_with_cosine_annealing(max_lr=1e-4, warmup_steps=2000):
    opt = Config(OptimizerConfig, optimizer="adam", lr=max_lr, weight_decay=0.1, bf16=True, fp16=False,
                 adam_beta1=0.9, adam_beta2=0.95, adam_eps=1e-5, use_distributed_optimizer=True, clip_grad=1.0)
    sched = Config(CosineAnnealingScheduler, warmup_steps=warmup_steps, constant_steps=0, min_lr=0.1 * max_lr)
    return Config(MegatronOptimizerModule, config=opt, lr_scheduler=sched)


def _trainer(tp, pp, pipeline_dtype, vp, cp, sp, num_nodes, num_gpus_per_node, plugins, ep=None, extra=None,
             ddp_extra=None):
    ddp = Config(DistributedDataParallelConfig, check_for_nan_in_grad=True, grad_reduce_in_fp32=True,
                 overlap_grad_reduce=True, overlap_param_gather=True, average_in_collective=True, **(ddp_extra or {}))
    kwargs = dict(tensor_model_parallel_size=tp, pipeline_model_parallel_size=pp, pipeline_dtype=pipeline_dtype,
                  virtual_pipeline_model_parallel_size=vp, context_parallel_size=cp, sequence_parallel=sp,
                  gradient_as_bucket_view=True, ckpt_async_save=True, ckpt_parallel_load=True, ddp=ddp, **(extra or {}))
    if ep is not None:
        kwargs["expert_model_parallel_size"] = ep
    strategy = Config(MegatronStrategy, **kwargs)
    return Config(Trainer, accelerator="gpu", accumulate_grad_batches=1, callbacks=[Config(TimingCallback)],
                  devices=num_gpus_per_node, limit_test_batches=50, limit_val_batches=32, log_every_n_steps=10,
                  max_steps=1168251, num_nodes=num_nodes, plugins=plugins, strategy=strategy,
                  use_distributed_sampler=False, val_check_interval=2000)


def _recipe(model, trainer, seq, gbs, mbs, max_lr):
    return Partial(pretrain, model=model, trainer=trainer,
                   data=Config(MockDataModule, seq_length=seq, global_batch_size=gbs, micro_batch_size=mbs),
                   log="default_log", resume="default_resume",
                   optim=distributed_fused_adam_with_cosine_annealing(max_lr=max_lr))


calls = []  # (recipe, kwargs) of every pretrain_recipe call
DEFAULT_NODES = {"llama3_8b": 1, "llama3_70b": 4, "llama31_405b": 64, "gpt3_175b": 64, "mixtral_8x7b": 8,
                 "deepseek_v3": 128}


def _recorded(recipe_name, build):
    """pretrain_recipe(dir, name, num_nodes, num_gpus_per_node, performance_mode, fn[, use_mtp])."""
    def pretrain_recipe(dir=None, name="default", num_nodes=DEFAULT_NODES[recipe_name], num_gpus_per_node=8,
                        performance_mode=False, fn=None, **kw):
        if performance_mode:
            raise NemoError("pplan never asks for performance_mode")
        if kw and (recipe_name != "deepseek_v3" or set(kw) != {"use_mtp"}):
            raise TypeError(f"{recipe_name}.pretrain_recipe got unexpected arguments {sorted(kw)}")
        calls.append((recipe_name, dict(dir=dir, name=name, num_nodes=num_nodes,
                                        num_gpus_per_node=num_gpus_per_node, **kw)))
        return build(num_nodes, num_gpus_per_node, **kw)
    return pretrain_recipe


def _llama3_8b(n, g):
    return _recipe(Config(LlamaModel, config=Config(Llama3Config8B)),
                   _trainer(1, 1, None, None, 2, False, n, g, bf16_mixed(),
                            extra=dict(fsdp=None), ddp_extra=dict(data_parallel_sharding_strategy="optim_grads_params")),
                   8192, 512, 1, 3e-4)


def _llama3_70b(n, g):
    return _recipe(Config(LlamaModel, config=Config(Llama3Config70B)),
                   _trainer(4, 4, torch.bfloat16, 5, 2, True, n, g, bf16_mixed()), 8192, 512, 1, 3e-4)


def _llama31_405b(n, g):
    return _recipe(Config(LlamaModel, config=Config(Llama31Config405B)),
                   _trainer(8, 8, torch.bfloat16, 2, 4, True, n, g, bf16_mixed(),
                            extra=dict(account_for_embedding_in_pipeline_split=True,
                                       account_for_loss_in_pipeline_split=True)), 8192, 512, 1, 8e-5)


def _gpt3_175b(n, g):
    return _recipe(Config(GPTModel, config=Config(GPTConfig175B)),
                   _trainer(4, 8, torch.bfloat16, 6, 1, True, n, g, bf16_mixed()), 2048, 2048, 2, 0.9e-4)


def _mixtral_8x7b(n, g):
    return _recipe(Config(MixtralModel, config=Config(MixtralConfig8x7B)),
                   _trainer(1, 4, torch.bfloat16, 8, 1, False, n, g,
                            Config(MegatronMixedPrecision, precision="bf16-mixed"), ep=8), 4096, 512, 1, 3e-4)


def _deepseek_v3(n, g, use_mtp=True):
    conf = Config(DeepSeekV3Config, mtp_num_layers=1, mtp_loss_scaling_factor=0.1) if use_mtp else Config(DeepSeekV3Config)
    recipe = _recipe(Config(DeepSeekModel, config=conf),
                     _trainer(1, 16, torch.bfloat16, None, 1, True, n, g, bf16_mixed(), ep=64), 4096, 4096, 1, 3e-4)
    s = recipe.trainer.strategy
    s.num_layers_in_first_pipeline_stage, s.num_layers_in_last_pipeline_stage = 3, 2
    s.virtual_pipeline_model_parallel_size, s.expert_tensor_parallel_size = None, 1
    s.tensor_model_parallel_size = 2
    s.ddp.grad_reduce_in_fp32 = False
    recipe.model.config.recompute_granularity = "selective"
    recipe.model.config.recompute_modules = ["mla_up_proj", "layernorm"]
    o = recipe.optim.config
    o.use_precision_aware_optimizer, o.main_params_dtype, o.main_grads_dtype = True, torch.float32, torch.bfloat16
    o.exp_avg_dtype, o.exp_avg_sq_dtype = torch.bfloat16, torch.bfloat16
    recipe.trainer.callbacks.extend([Config(DeepEPCallback),
                                     Config(GarbageCollectionCallback, gc_interval_train=5, gc_interval_val=5),
                                     Config(MegatronCommOverlapCallback, tp_comm_overlap=False)])
    return recipe


RECIPES = {"llama3_8b": _llama3_8b, "llama3_70b": _llama3_70b, "llama31_405b": _llama31_405b,
           "gpt3_175b": _gpt3_175b, "mixtral_8x7b": _mixtral_8x7b, "deepseek_v3": _deepseek_v3}


def base_recipe(name, num_nodes, num_gpus_per_node, **kw):
    """The recipe as NeMo builds it, before any override (for the 'nothing else changed' check)."""
    return RECIPES[name](num_nodes, num_gpus_per_node, **kw)


# ---- NeMo-Run ---------------------------------------------------------------------------

class Packager:
    """NeMo-Run's pass-through packager: nothing is packaged (the code is in the container)."""

    def __init__(self, debug=False, symlink_from_remote_dir=None):
        self.debug, self.symlink_from_remote_dir = debug, symlink_from_remote_dir


class LocalTunnel:
    def __init__(self, job_dir):
        self.job_dir = job_dir


SLURM_EXECUTOR_FIELDS = dict(
    account=None, partition=None, job_name_prefix=None, time="00:10:00", nodes=1, ntasks_per_node=1,
    cpus_per_task=None, cpus_per_gpu=None, gpus_per_node=None, gpus_per_task=None, qos=None, mem=None,
    mem_per_gpu=None, mem_per_cpu=None, comment=None, constraint=None, exclude=None, gres=None, signal=None,
    exclusive=None, array=None, open_mode="append", container_image=None, container_mounts=None,
    additional_parameters=None, srun_args=None, heterogeneous=False, memory_measure=False, tunnel=None,
    dependencies=None, dependency_type="afterok", torchrun_nproc_per_node=None, setup_lines=None, segment=None,
    network=None, env_vars=None, retries=0, launcher=None, packager=None)


class SlurmExecutor:
    def __init__(self, **kwargs):
        if "account" not in kwargs:
            raise NemoError("SlurmExecutor needs account")
        for k in kwargs:
            if k not in SLURM_EXECUTOR_FIELDS:
                raise TypeError(f"SlurmExecutor got an unexpected keyword argument {k!r}")
        self.fields = {**SLURM_EXECUTOR_FIELDS, **kwargs}


runs = []


def run_fn(task, executor=None, name=None, **kwargs):
    runs.append((task, executor, name))


def install():
    def module(name, **attrs):
        m = types.ModuleType(name)
        m.__dict__.update(attrs)
        sys.modules[name] = m
        return m

    sys.modules["torch"], sys.modules["torch.nn"], sys.modules["torch.nn.functional"] = torch, torch_nn, torch_functional
    module("nemo_run", Config=Config, Partial=Partial, SlurmExecutor=SlurmExecutor, LocalTunnel=LocalTunnel,
           Packager=Packager, run=run_fn)
    llm = module("nemo.collections.llm", PreTrainingDataModule=PreTrainingDataModule)
    for name in RECIPES:
        setattr(llm, name, module(f"nemo.collections.llm.{name}", pretrain_recipe=_recorded(name, RECIPES[name])))
    module("nemo")
    module("nemo.collections", llm=llm)
    module("nemo.collections.common")
    module("nemo.collections.common.tokenizers", AutoTokenizer=AutoTokenizer)
    module("nemo.collections.llm.recipes")
    module("nemo.collections.llm.recipes.precision")
    module("nemo.collections.llm.recipes.precision.mixed_precision", bf16_mixed=bf16_mixed,
           bf16_with_fp8_mixed=bf16_with_fp8_mixed, bf16_with_mxfp8_mixed=bf16_with_mxfp8_mixed,
           bf16_with_fp8_current_scaling_mixed=bf16_with_fp8_current_scaling_mixed,
           bf16_with_fp8_subchannel_scaling_mixed=bf16_with_fp8_subchannel_scaling_mixed)
    for name in ("nemo.lightning", "nemo.lightning.pytorch", "nemo.lightning.pytorch.callbacks"):
        module(name)
    module("nemo.lightning.pytorch.callbacks.megatron_comm_overlap",
           MegatronCommOverlapCallback=MegatronCommOverlapCallback)
    module("nemo.utils")
    module("nemo.utils.exp_manager", TimingCallback=TimingCallback)
