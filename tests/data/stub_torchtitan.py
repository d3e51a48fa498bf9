"""Stub of torchtitan's config classes at pytorch/torchtitan b5bcd76c66d0 (2026-08-21).

Written from torchtitan's sources (not copied): the fields, types and defaults of the
dataclasses a config function touches, the registry entries pplan starts from, and the checks
torchtitan makes on them when a run starts. Python standard library only.

Sources, all at b5bcd76c:
  torchtitan/config/configs.py          TrainingConfig, ParallelismConfig, CompileConfig
  torchtitan/trainer.py                 Trainer.Config (_validate_cuda_graphs), token divisibility
  torchtitan/distributed/activation_checkpoint.py   FullAC, SelectiveAC, MemoryBudgetAC configs
  torchtitan/components/quantization/__init__.py, float8.py   Float8 converters
  torchtitan/models/llama3/__init__.py, config_registry.py    model_registry, llama3_*()
  torchtitan/models/deepseek_v3/__init__.py, config_registry.py   model_registry, deepseek_v3_671b()
  torchtitan/models/common/decoder.py   update_from_config (TP divides heads and KV heads)
  torchtitan/distributed/parallel_dims.py   world size and EP region
  torchtitan/distributed/pipeline_parallel.py   stages and the split of layers into stages
  torchtitan/distributed/fsdp.py        reshard_after_forward policy
  torchtitan/components/optimizer/optimizer.py   OptimizersContainer.Config (implementation)
install() puts the modules under their torchtitan names into sys.modules.
"""

import dataclasses
import math
import sys
import types
from dataclasses import dataclass, field
from typing import Optional

COMMIT = "b5bcd76c66d0"


class TorchtitanError(ValueError):
    """What torchtitan would raise when the run starts."""


# ---- torchtitan/config/configs.py -------------------------------------------------------

@dataclass(kw_only=True, slots=True)
class TrainingConfig:
    num_tokens_per_microbatch_per_dp_rank: int = 16384
    num_tokens_per_train_step: int = -1
    max_context_length: int = 2048
    max_norm: float = 1.0
    steps: int = 10000
    enable_cpu_offload: bool = False
    disable_cuda_graphs: bool = False
    dtype: str = "float32"
    mixed_precision_param: str = "bfloat16"
    mixed_precision_reduce: str = "float32"
    gc_freq: int = 50
    gc_debug: bool = False

    def __post_init__(self):
        if self.num_tokens_per_microbatch_per_dp_rank <= 0:
            raise TorchtitanError("num_tokens_per_microbatch_per_dp_rank must be greater than 0.")
        if self.num_tokens_per_train_step != -1 and self.num_tokens_per_train_step <= 0:
            raise TorchtitanError("num_tokens_per_train_step must be -1 or greater than 0.")
        if self.max_context_length <= 0:
            raise TorchtitanError("max_context_length must be greater than 0.")


@dataclass(kw_only=True, slots=True)
class ParallelismConfig:
    data_parallel_replicate_degree: int = 1
    data_parallel_shard_degree: int = -1
    fsdp_reshard_after_forward: str = "default"
    enable_fsdp_symm_mem: bool = False
    tensor_parallel_degree: int = 1
    enable_sequence_parallel: bool = True
    spmd_backend: str = "spmd_types"
    pipeline_parallel_degree: int = 1
    module_fqns_per_model_part: Optional[list] = None
    pipeline_parallel_first_stage_less_layers: int = 1
    pipeline_parallel_last_stage_less_layers: int = 1
    pipeline_parallel_layers_per_stage: Optional[int] = None
    pipeline_parallel_schedule: str = "1F1B"
    pipeline_parallel_schedule_csv: Optional[str] = ""
    num_pp_microbatches: int = 1
    context_parallel_degree: int = 1
    context_parallel_load_balancer: Optional[str] = "headtail"
    context_parallel_ptrr_mask_key: Optional[str] = None
    expert_parallel_degree: int = 1

    def __post_init__(self):
        if self.spmd_backend not in {"partial_dtensor", "spmd_types"}:
            raise TorchtitanError("parallelism.spmd_backend must be either 'partial_dtensor' or 'spmd_types'.")
        if self.context_parallel_load_balancer == "":
            raise TorchtitanError("context_parallel_load_balancer cannot be an empty string.")


@dataclass(kw_only=True, slots=True)
class CompileConfig:
    enable: bool = False
    enable_async_tensor_parallel: bool = False
    components: list = field(default_factory=lambda: ["model", "loss"])
    backend: str = "inductor"

    def __post_init__(self):
        if self.enable_async_tensor_parallel and not (self.enable and "model" in self.components):
            raise TorchtitanError("Async TP requires 'model' in --compile.components and --compile.enable")


# ---- torchtitan/distributed/activation_checkpoint.py --------------------------------------

class FullAC:
    @dataclass(kw_only=True, slots=True)
    class Config:
        preserve_rng_state: bool = True
        determinism_check: str = "default"
        debug: bool = False


class SelectiveAC:
    @dataclass(kw_only=True, slots=True)
    class Config:
        preserve_rng_state: bool = True
        determinism_check: str = "default"
        debug: bool = False
        force_recompute_mm_shapes_by_fqns: list = field(default_factory=lambda: ["moe.router.gate"])


class MemoryBudgetAC:
    @dataclass(kw_only=True, slots=True)
    class Config:
        preserve_rng_state: bool = True
        determinism_check: str = "default"
        debug: bool = False
        memory_budget: float = 0.5


# ---- torchtitan/components/quantization ----------------------------------------------------

class Float8LinearConverter:
    @dataclass(kw_only=True, slots=True)
    class Config:
        model_compile_enabled: bool = False
        recipe_name: str = "rowwise"
        filter_fqns: list = field(default_factory=list)
        emulate: bool = False

        def __post_init__(self):
            if self.recipe_name not in ("rowwise", "rowwise_with_gw_hp"):
                raise TorchtitanError(f"unknown Float8 recipe {self.recipe_name}")


class Float8GroupedExpertsConverter:
    @dataclass(kw_only=True, slots=True)
    class Config:
        model_compile_enabled: bool = False


# ---- models: the registry flavors pplan starts from (llama3/__init__.py, deepseek_v3/__init__.py)

@dataclass(frozen=True)
class ModelShape:
    layers: int
    dim: int
    n_heads: int
    n_kv_heads: int
    ffn: int
    vocab: int
    rope_theta: float
    experts: int = 0
    top_k: int = 0
    shared_experts: int = 0
    expert_ffn: int = 0
    dense_layers: int = 0
    weight_tying: bool = False


def compute_ffn_hidden_dim(dim, multiple_of, ffn_dim_multiplier):
    """torchtitan models/common: 4*dim, two thirds, times the multiplier, rounded up."""
    hidden = int(2 * (4 * dim) / 3)
    hidden = int(ffn_dim_multiplier * hidden)
    return multiple_of * ((hidden + multiple_of - 1) // multiple_of)


LLAMA3_FLAVORS = {
    "8B": ModelShape(32, 4096, 32, 8, compute_ffn_hidden_dim(4096, 1024, 1.3), 128256, 500000),
    "70B": ModelShape(80, 8192, 64, 8, compute_ffn_hidden_dim(8192, 4096, 1.3), 128256, 500000),
    "405B": ModelShape(126, 16384, 128, 8, compute_ffn_hidden_dim(16384, 4096, 1.2), 128256, 500000),
}
DEEPSEEK_V3_FLAVORS = {
    # MLA has no n_kv_heads: decoder.py falls back to n_heads.
    "671B": ModelShape(61, 7168, 128, 128, 18432, 129280, 10000.0, 256, 8, 1, 2048, 3),
}


@dataclass(slots=True)
class ModelSpec:
    name: str
    flavor: str
    shape: ModelShape
    attn_backend: str
    converters: list


def _validate_converters(converters):
    for c in converters or []:
        if not isinstance(c, (Float8LinearConverter.Config, Float8GroupedExpertsConverter.Config)):
            raise TorchtitanError(f"not a model converter config: {c!r}")


def llama3_model_registry(flavor, attn_backend="flex", tp_gemm_backend="default", converters=None):
    if flavor not in LLAMA3_FLAVORS:
        raise KeyError(flavor)
    if attn_backend not in ("flex", "sdpa", "varlen"):
        raise TorchtitanError(f"unknown attention backend {attn_backend}")
    _validate_converters(converters)
    return ModelSpec("llama3", flavor, LLAMA3_FLAVORS[flavor], attn_backend, list(converters or []))


def deepseek_v3_model_registry(flavor, attn_backend="flex", moe_comm_backend="standard",
                               non_blocking_capacity_factor=None, converters=None, num_mtp_layers=0):
    if flavor not in DEEPSEEK_V3_FLAVORS:
        raise KeyError(flavor)
    _validate_converters(converters)
    spec = ModelSpec("deepseek_v3", flavor, DEEPSEEK_V3_FLAVORS[flavor], attn_backend, list(converters or []))
    spec.shape = dataclasses.replace(spec.shape)
    return spec


# ---- torchtitan/components/optimizer/optimizer.py OptimizersContainer.Config ---------------

OPTIMIZER_IMPLEMENTATIONS = ("for-loop", "foreach", "fused", "fused_opt_states_bf16")


class OptimizersContainer:
    @dataclass(kw_only=True, slots=True)
    class Config:
        name: str = "AdamW"
        implementation: str = "fused"

        def __post_init__(self):
            # Literal[...] field; bf16 states only for Adam/AdamW (docs/bf16_optimizer_states.md).
            if self.implementation not in OPTIMIZER_IMPLEMENTATIONS:
                raise TorchtitanError(f"unknown optimizer implementation {self.implementation!r}")
            if self.implementation == "fused_opt_states_bf16" and self.name not in ("Adam", "AdamW"):
                raise TorchtitanError("fused_opt_states_bf16 supports only Adam and AdamW")


# ---- torchtitan/trainer.py Trainer.Config -------------------------------------------------

class Trainer:
    @dataclass(kw_only=True, slots=True)
    class Config:
        model_spec: Optional[ModelSpec] = None
        hf_assets_path: str = "./tests/assets/tokenizer"
        dump_folder: str = "./outputs"
        training: TrainingConfig = field(default_factory=TrainingConfig)
        parallelism: ParallelismConfig = field(default_factory=ParallelismConfig)
        activation_checkpoint: object = field(default_factory=SelectiveAC.Config)
        compile: CompileConfig = field(default_factory=CompileConfig)
        optimizer: OptimizersContainer.Config = field(default_factory=OptimizersContainer.Config)
        # Components pplan does not change (data, checkpoint, ...): opaque here.
        lr_scheduler: object = None
        dataloader: object = None
        checkpoint: object = None
        metrics: object = None
        profiler: object = None
        validator: object = None
        loss: object = None


# The registry functions pplan starts from, with the values config_registry.py gives them.
def llama3_8b():
    return Trainer.Config(
        model_spec=llama3_model_registry("8B"),
        training=TrainingConfig(num_tokens_per_microbatch_per_dp_rank=1 * 8192, max_context_length=8192, steps=1000),
        activation_checkpoint=SelectiveAC.Config())


def llama3_70b():
    return Trainer.Config(
        model_spec=llama3_model_registry("70B"),
        training=TrainingConfig(num_tokens_per_microbatch_per_dp_rank=8 * 8192, max_context_length=8192, steps=1000),
        parallelism=ParallelismConfig(tensor_parallel_degree=8),
        activation_checkpoint=FullAC.Config())


def llama3_405b():
    compile_config = CompileConfig(enable=True, enable_async_tensor_parallel=True)
    return Trainer.Config(
        model_spec=llama3_model_registry("405B", converters=[Float8LinearConverter.Config(
            filter_fqns=["lm_head"], model_compile_enabled=True)]),
        training=TrainingConfig(num_tokens_per_microbatch_per_dp_rank=2 * 8192, max_context_length=8192, steps=3000),
        parallelism=ParallelismConfig(tensor_parallel_degree=8),
        activation_checkpoint=FullAC.Config(),
        compile=compile_config)


def deepseek_v3_671b():
    return Trainer.Config(
        model_spec=deepseek_v3_model_registry("671B", attn_backend="flex"),
        training=TrainingConfig(num_tokens_per_microbatch_per_dp_rank=4 * 4096, max_context_length=4096,
                                steps=10000, disable_cuda_graphs=True),
        parallelism=ParallelismConfig(pipeline_parallel_schedule="Interleaved1F1B", expert_parallel_degree=2),
        activation_checkpoint=SelectiveAC.Config(),
        compile=CompileConfig(enable=True, components=["loss"]))


# ---- what torchtitan checks when the run starts ----------------------------------------

SINGLE_STAGE_SCHEDULES = {"1f1b", "gpipe"}
MULTI_STAGE_SCHEDULES = {"interleaved1f1b", "loopedbfs", "interleavedzerobubble", "zbvzerobubble", "dualpipev"}


def pipeline_layers_per_rank(p, layers):
    """pipeline_parallel.py: the number of stages and the layers of each, summed per rank
    (stage s runs on rank s % pp for the looped schedules)."""
    schedule = p.pipeline_parallel_schedule.lower()
    if schedule not in SINGLE_STAGE_SCHEDULES | MULTI_STAGE_SCHEDULES:
        raise TorchtitanError(f"unknown pipeline schedule {p.pipeline_parallel_schedule}")
    single = schedule in SINGLE_STAGE_SCHEDULES
    a, b = p.pipeline_parallel_first_stage_less_layers, p.pipeline_parallel_last_stage_less_layers
    pp = p.pipeline_parallel_degree
    k = p.pipeline_parallel_layers_per_stage
    if k is None:
        stages = pp * (1 if single else 2)
    else:
        stages = math.ceil((layers + a + b) / k)
        if stages % pp != 0:
            raise TorchtitanError(f"Number of virtual stages ({stages}) must be divisible by pipeline parallel size ({pp})")
        per_rank = stages // pp
        if single and per_rank != 1:
            raise TorchtitanError("Single stage schedule requires exactly 1 stage per rank")
        if not single and per_rank < 2:
            raise TorchtitanError("Multi-stage schedule requires at least 2 stages per rank")
    effective = layers + a + b
    if stages > effective:
        raise TorchtitanError("Number of stages cannot be greater than effective layers")
    each, extra = divmod(effective, stages)
    if each == 0 or a > each or b > each:
        raise TorchtitanError("input/output weight exceeds minimum layers per stage")
    counts = []
    for s in range(stages):
        n = each + (1 if s < extra else 0)
        if s == 0:
            n -= a
        if s == stages - 1:
            n -= b
        counts.append(n)
    totals = [0] * pp
    for s, n in enumerate(counts):
        totals[s % pp] += n
    return stages, totals


def validate(config, world_size):
    """The checks a torchtitan run makes before the first step; returns the derived facts."""
    if not isinstance(config, Trainer.Config):
        raise TorchtitanError("pplan_plan() must return a Trainer.Config")
    p, t, shape = config.parallelism, config.training, config.model_spec.shape
    # trainer.py _validate_cuda_graphs
    if not t.disable_cuda_graphs:
        if p.pipeline_parallel_degree > 1:
            raise TorchtitanError("CUDA graphs do not support pipeline parallelism yet. Set --training.disable_cuda_graphs.")
        if p.expert_parallel_degree > 1 and shape.experts > 0:
            raise TorchtitanError("CUDA graphs support only expert parallel token dispatcher configurations without "
                                  "CPU synchronization")
    if p.num_pp_microbatches <= 0:
        raise TorchtitanError("parallelism.num_pp_microbatches must be greater than 0.")
    # The configs' own __post_init__ checks, re-run on the values the function left.
    for part in (t, p, config.compile, config.optimizer):
        type(part).__post_init__(part)
    if p.fsdp_reshard_after_forward not in ("default", "always", "never"):
        raise TorchtitanError(f"Invalid reshard_after_forward_policy: {p.fsdp_reshard_after_forward}")
    # parallel_dims.py
    degrees = dict(dp_replicate=p.data_parallel_replicate_degree, dp_shard=p.data_parallel_shard_degree,
                   cp=p.context_parallel_degree, tp=p.tensor_parallel_degree, pp=p.pipeline_parallel_degree,
                   ep=p.expert_parallel_degree)
    for name, d in degrees.items():
        if name != "dp_shard" and d < 1:
            raise TorchtitanError("Parallelism degree should be >= 1, except for dp_shard")
    if degrees["dp_shard"] < 0:
        degrees["dp_shard"] = world_size // (degrees["dp_replicate"] * degrees["cp"] * degrees["tp"] * degrees["pp"])
    product = degrees["dp_replicate"] * degrees["dp_shard"] * degrees["cp"] * degrees["tp"] * degrees["pp"]
    if product != world_size:
        raise TorchtitanError(f"Invalid parallel dims: product {product} != WORLD_SIZE({world_size})")
    sparse = degrees["dp_shard"] * degrees["cp"] * degrees["tp"]
    if degrees["ep"] > 1 and sparse % degrees["ep"] != 0:
        raise TorchtitanError(f"expert_parallel_degree ({degrees['ep']}) must divide dp_shard * cp * tp ({sparse})")
    # decoder.py update_from_config
    if p.context_parallel_degree > 1 and config.model_spec.attn_backend in ("sdpa", "varlen"):
        raise TorchtitanError("Context Parallel is not supported with ScaledDotProductAttention or VarlenAttention.")
    tp = p.tensor_parallel_degree
    if tp > 1 and (shape.n_heads % tp or shape.n_kv_heads % tp):
        raise TorchtitanError(f"tensor_parallel_degree ({tp}) must divide n_heads and n_kv_heads")
    if shape.experts and shape.experts % degrees["ep"]:
        raise TorchtitanError("num_experts must be divisible by expert_parallel_degree")
    if shape.weight_tying and p.pipeline_parallel_degree > 1:
        raise TorchtitanError("Weight tying is not supported with Pipeline Parallel.")
    # trainer.py: tokens per micro-batch divisible by the sequence/context shards
    divisor = (tp if p.enable_sequence_parallel else 1) * (2 * p.context_parallel_degree if p.context_parallel_degree > 1 else 1)
    if t.num_tokens_per_microbatch_per_dp_rank % divisor:
        raise TorchtitanError("tokens per pipeline microbatch not divisible for sequence/context parallelism")
    facts = dict(degrees=degrees)
    if p.pipeline_parallel_degree > 1:
        facts["stages"], facts["layers_per_rank"] = pipeline_layers_per_rank(p, shape.layers)
    # Gradient accumulation: the global token count must be whole micro-batches of every DP rank.
    dp = degrees["dp_replicate"] * degrees["dp_shard"]
    micro = t.num_tokens_per_microbatch_per_dp_rank * (p.num_pp_microbatches if p.pipeline_parallel_degree > 1 else 1)
    if t.num_tokens_per_train_step % (micro * dp):
        raise TorchtitanError("num_tokens_per_train_step is not a whole number of micro-batches")
    facts["gradient_accumulation"] = t.num_tokens_per_train_step // (micro * dp)
    return facts


def install():
    """Registers the stub under torchtitan's module names."""
    def module(name, **attrs):
        m = types.ModuleType(name)
        m.__dict__.update(attrs)
        sys.modules[name] = m
        return m

    module("torchtitan")
    module("torchtitan.trainer", Trainer=Trainer)
    module("torchtitan.config", TrainingConfig=TrainingConfig, ParallelismConfig=ParallelismConfig,
           CompileConfig=CompileConfig)
    module("torchtitan.config.configs", TrainingConfig=TrainingConfig, ParallelismConfig=ParallelismConfig,
           CompileConfig=CompileConfig)
    module("torchtitan.components")
    module("torchtitan.components.quantization", Float8LinearConverter=Float8LinearConverter,
           Float8GroupedExpertsConverter=Float8GroupedExpertsConverter)
    module("torchtitan.distributed")
    module("torchtitan.distributed.activation_checkpoint", FullAC=FullAC, SelectiveAC=SelectiveAC,
           MemoryBudgetAC=MemoryBudgetAC)
    module("torchtitan.models")
    module("torchtitan.models.llama3", model_registry=llama3_model_registry)
    module("torchtitan.models.llama3.config_registry", llama3_8b=llama3_8b, llama3_70b=llama3_70b,
           llama3_405b=llama3_405b)
    module("torchtitan.models.deepseek_v3", model_registry=deepseek_v3_model_registry)
    module("torchtitan.models.deepseek_v3.config_registry", deepseek_v3_671b=deepseek_v3_671b)
