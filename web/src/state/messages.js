// What the page says, in words, about the engine's codes: field labels, input errors ("what to
// do", with the code kept for a details line), why plans fail and which pin to release. A
// dictionary over the engine's stable code tables (diagnostics.h, json_io.h); no model logic.
// Pure.
import { fieldForPath, kindOf } from './scenario.js';
import { groupDigits } from './format.js';

export const MODEL_LABELS = {
  name: 'Name', layers: 'Layers', hidden: 'Hidden size', heads: 'Attention heads', kv_heads: 'KV heads (GQA)',
  ffn_hidden: 'FFN hidden', vocab: 'Vocabulary', activation: 'Activation',
  experts: 'Experts', top_k: 'Experts per token (top-k)', shared_experts: 'Shared experts',
  expert_ffn_hidden: 'Expert FFN hidden', dense_layers: 'Dense layers (first)', every: 'Experts every k-th layer',
  groups: 'Routing groups', group_top_k: 'Groups per token',
  tied_embeddings: 'Tied embeddings', dropout: 'Dropout', learned_positions: 'Learned positions', rope_theta: 'RoPE base (θ)',
  nominal_params: 'Nominal size (parameters)', q_lora_rank: 'Query latent (q_lora_rank)', kv_lora_rank: 'K/V latent (kv_lora_rank)',
  qk_nope_head_dim: 'Q/K dims without RoPE', qk_rope_head_dim: 'Q/K RoPE dims', v_head_dim: 'Value dims',
  head_dim: 'Head width (head_dim)', qk_norm: 'Q/K norms', linear_bias: 'Linear biases', attention_sinks: 'Attention sinks',
  mtp_layers: 'MTP modules', hybrid_pattern: 'Hybrid layers (M * -)', state: 'SSM state',
  conv_kernel: 'Conv taps', chunk: 'Scan chunk', tokens: 'Window / chunk tokens', global_every: 'Global every k-th layer', chunked: 'Chunked (not sliding)',
};
export const GPU_LABELS = {
  name: 'Name', memory_gb: 'Memory (GiB)', bf16_tflops: 'BF16 dense TFLOP/s', fp8_tflops: 'FP8 dense TFLOP/s',
  nvlink_gbytes_per_s: 'NVLink GB/s per GPU', network_gbytes_per_s: 'Network GB/s per GPU',
  host_link_gbytes_per_s: 'Host link GB/s per GPU (PCIe or C2C)', host_memory_gb: 'Host memory GB per GPU',
  architecture: 'Architecture', fp4_tflops: 'FP4 dense TFLOP/s (shown only)', hbm_gbytes_per_s: 'HBM GB/s',
  sm_count: 'SMs', mamf_fraction_bf16: 'Achievable matmul share, BF16', mamf_fraction_fp8: 'Achievable matmul share, FP8',
  nvlink_efficiency: 'NVLink share NCCL reaches', network_efficiency: 'Network share NCCL reaches',
  nvlink_latency_us: 'NVLink latency per step (µs)', network_latency_us: 'Network latency per step (µs)',
  attention_scale: 'Attention speed vs model (×)', softmax_exp_per_clock_per_sm: 'Softmax exponentials per clock per SM',
  host_kernel_us: 'Host µs per kernel',
};
export const FIELD_LABELS = {
  model: 'Model', gpu: 'GPU', gpus: 'GPUs', gpn: 'GPUs per node', seq: 'Sequence length', gbs: 'Global batch',
  prec: 'Precision', fw: 'Framework', disp: 'MoE dispatcher', epov: 'EP all-to-all overlap',
  fa: 'Flash attention', ogr: 'Overlap gradient reduction', opg: 'Overlap weight all-gather', tpo: 'TP communication overlap',
  gr32: 'Gradients reduced in FP32', cg: 'CUDA graphs', f8r: 'FP8 recipe (or NVFP4)', osd: 'Optimizer state dtype', hr: 'Memory headroom',
  rcl: 'Recomputed layers per chunk', ofl: 'Layers offloaded to host memory', rcm: 'Recomputed modules (selective)', fsl: 'Layers on the first stage', lsl: 'Layers on the last stage', tokens: 'Token budget', storage: 'Storage write GB/s', failrate: 'Failures per GPU-hour',
  restart: 'Restart time (s)', tp: 'TP', pp: 'PP', dp: 'DP', cp: 'CP', ep: 'EP', etp: 'ETP', vpp: 'VPP', mbs: 'Micro-batch',
  sp: 'Sequence parallel', rc: 'Recompute', zero: 'ZeRO stage',
  nvd: 'NVLink domain (GPUs)', nics: 'NICs per node', nicg: 'NIC rate (Gbit/s)', rail: 'Rail-optimised fabric',
  osub: 'Oversubscription', sched: 'Pipeline schedule', f8s: 'SwiGLU input stored in FP8', f8p: 'FP8 weights (FP8 / NVFP4 parameter gather)',
  f8a: 'Attention in FP8',
};

/** Pipeline schedules (parallel.schedule) by their short names, as plans and launch lines say them. */
export const SCHEDULE_NAMES = { '1f1b': '1F1B', interleaved: 'interleaved 1F1B', 'zb-h1': 'ZB-H1', 'zb-v': 'ZB-V', dualpipe: 'DualPipe', dualpipev: 'DualPipeV' };
/** A schedule's short name ('dualpipe' -> 'DualPipe'; an unknown one as the engine spells it). */
export const scheduleName = (id) => SCHEDULE_NAMES[id] || String(id);
/** Whether a plan's schedule is other than the two every framework runs (1F1B, interleaved), so worth naming. */
export const namedSchedule = (p) => Boolean(p && p.pp > 1 && p.schedule && p.schedule !== '1f1b' && p.schedule !== 'interleaved');

/** The label of a form field key ('gpus', 'model.hidden', 'gpu.memory_gb'). */
export function labelOf(field) {
  if (!field) return '';
  if (FIELD_LABELS[field]) return FIELD_LABELS[field];
  const [group, ...rest] = field.split('.');
  const leaf = rest[rest.length - 1];
  if (group === 'model') return `Model ${(MODEL_LABELS[leaf] || leaf).toLowerCase()}`;
  if (group === 'gpu') return `GPU ${(GPU_LABELS[leaf] || leaf).toLowerCase()}`;
  return field;
}

function example(field) {
  if (field === 'seq') return '8192 or 8k';
  if (field === 'tokens') return '300B or 15T';
  if (['gpus', 'gbs'].includes(field)) return '1024 or 16k';
  return kindOf(field || '') === 'decimal' ? '80 or 2.5' : '8';
}

/**
 * An engine error ({code, path, message}) in words: {field, text, details}. `text` says what to
 * do; `details` keeps the engine's code, path and message for a details line.
 */
export function humanError(error) {
  if (error && !error.code) return { field: null, text: String(error.message || 'unknown error'), details: '' };
  const code = String(error && error.code || 'internal');
  const path = String(error && error.path || '');
  const message = String(error && error.message || '');
  const field = fieldForPath(path);
  const label = labelOf(field) || (path && path !== '/' ? path : 'The scenario');
  // The engine names fields by JSON pointer; say the label instead.
  const plain = path && path !== '/' ? message.split(path).join(label) : message;
  let text;
  if (code === 'schema.wrong_type' || code === 'input.not_integer') {
    text = `${label} must be a ${kindOf(field || '') === 'count' ? 'whole number' : 'number'}, for example ${example(field)}.`;
  } else if (code === 'input.out_of_range') {
    const range = /it must be (.*)$/.exec(message);
    text = range ? `${label} must be ${range[1]}.` : `${plain}.`;
  } else if (code === 'schema.missing_field') {
    text = `${label} is needed: fill it in.`;
  } else if (code === 'schema.bad_enum') {
    text = `${label}: pick one of the listed values.`;
  } else if (code === 'input.unknown_preset') {
    text = `${label}: there is no such preset here; pick one from the list.`;
  } else if (code === 'schema.unknown_field') {
    text = `This scenario has a field pplan does not know (${path}); remove it or check its spelling.`;
  } else if (code === 'internal') {
    text = 'The engine hit an internal error on this input; please report it with the link.';
  } else {
    text = /[.!?]$/.test(plain) ? plain : `${plain}.`;
  }
  return { field, text, details: `${code}${path ? ` at ${path}` : ''}: ${message}` };
}

/** Why plans fail, by diagnostic code (diagnostics.h), and the pins worth releasing. */
export const REASONS = {
  'plan.gpu_count_mismatch': ['TP × PP × DP × CP is not the number of GPUs', ['dp', 'tp', 'pp', 'cp']],
  'plan.heads_not_divisible': ['the attention heads do not split evenly over TP', ['tp']],
  'plan.kv_heads_not_divisible': ['the key/value heads and TP do not divide each other', ['tp']],
  'plan.layers_not_divisible': ['the layers do not split over the pipeline stages', ['pp']],
  'plan.batch_not_divisible': ['the global batch does not split into DP × micro-batch', ['mbs', 'dp']],
  'plan.vpp_not_divisible': ['the virtual stages do not divide the layers of a stage', ['vpp']],
  'plan.vpp_needs_pp': ['interleaving (VPP > 1) needs more than one pipeline stage', ['vpp', 'pp']],
  'plan.vpp_microbatches': ['interleaving needs a whole multiple of PP micro-batches', ['vpp', 'mbs']],
  'plan.cp_seq_not_divisible': ['the sequence does not split into 2 × CP chunks', ['cp']],
  'plan.ep_not_divisible': ['the experts do not split over EP, or ETP × EP does not divide TP × CP × DP', ['ep', 'etp']],
  'plan.etp_not_divisible': ['the expert width does not split over ETP', ['etp']],
  'plan.etp_without_moe': ['expert tensor parallelism needs a mixture-of-experts model', ['etp']],
  'plan.ep_without_moe': ['expert parallelism needs a mixture-of-experts model', ['ep']],
  'plan.schedule_vpp': ['the pipeline schedule does not run this many virtual stages (VPP)', ['sched', 'vpp']],
  'plan.schedule_needs_pp': ['the pipeline schedule needs more than one pipeline stage', ['sched', 'pp']],
  'plan.schedule_pp': ['DualPipe needs an even number of pipeline stages', ['pp', 'sched']],
  'plan.schedule_microbatches': ['the pipeline schedule needs more micro-batches per step (at least 2 × PP)', ['sched', 'mbs', 'dp']],
  'plan.out_of_memory': ['it does not fit in GPU memory', ['rc', 'zero', 'pp', 'tp', 'mbs', 'cp']],
  'plan.infeasible': ['no configuration is valid', []],
};

/** A diagnostic or rejection code in words. */
export const reasonText = (code) => (REASONS[code] ? REASONS[code][0] : String(code).replace(/^plan\./, '').replace(/_/g, ' '));

/**
 * The pinned fields worth releasing when nothing fits, most useful first: those the failing
 * codes name, in their order, among the fields the state pins. At most `limit`.
 */
export function pinsToRelease(codes, state, limit = 3) {
  const out = [];
  for (const code of codes) {
    for (const field of (REASONS[code] || [null, []])[1]) {
      if (state[field] !== '' && state[field] !== undefined && !out.includes(field)) out.push(field);
    }
  }
  return out.slice(0, limit);
}

/** "1 configuration", "2 configurations". */
export const plural = (n, word) => `${groupDigits(Number(n))} ${word}${n === 1 ? '' : 's'}`;
