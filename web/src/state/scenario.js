// Page state <-> scenario document (docs/cli.md, scenario fields). Pure. Form values stay the text the
// user typed; human numbers ("8k", "4,096", "300B": quantity.js) are sent as numbers, anything
// else is sent as typed so the engine names the field and says what is wrong (one validator, in
// C++, for the CLI and the page alike). Scenario fields left empty take SCENARIO_DEFAULTS.

import { EXTRA_FIELDS, MODEL_BLOCKS, SCENARIO_KEYS, emptyState, liftReportFields, UI_DEFAULTS } from './url.js';
import { parseQuantity } from './quantity.js';

/**
 * What an empty scenario field means (a partial or v0 link, a cleared field): the worked
 * example's model, GPU, cluster and batch (examples/gpt3-175b-1024-a100.json). Empty parallel
 * fields are searched; an empty precision is the engine's default (BF16).
 */
export const SCENARIO_DEFAULTS = Object.freeze({
  model: 'gpt3-175b', gpu: 'a100-80gb', gpus: '1024', gpn: '8', seq: '2048', gbs: '1536',
});
// gpn's default is shown only: an empty field is left out of the scenario (see toScenario).

/** A scenario field's value, or its documented default when it is empty. */
export const withDefault = (state, key) => (state[key] === '' || state[key] === undefined ? SCENARIO_DEFAULTS[key] : state[key]);

/** How each numeric field reads human input (quantity.js): binary counts, decimal tokens, plain. */
export const FIELD_KINDS = { tokens: 'tokens', storage: 'decimal', failrate: 'decimal', restart: 'decimal', nicg: 'decimal', osub: 'decimal', hr: 'decimal' };
/** Fields that are true or false in the scenario (the form's select says 'true' or 'false'). */
export const BOOLEAN_KEYS = new Set(['rail', 'epov', 'fa', 'ogr', 'opg', 'tpo', 'gr32', 'cg', 'f8s', 'f8p', 'f8a']);
export const kindOf = (key) => FIELD_KINDS[key] || (key.startsWith('gpu.') ? 'decimal' : 'count');

/** Scenario paths of the flat state keys. */
export const PATHS = {
  model: '/model', gpu: '/cluster/gpu', gpus: '/cluster/gpus', gpn: '/cluster/gpus_per_node',
  seq: '/training/seq_len', gbs: '/training/global_batch', prec: '/training/precision',
  tp: '/parallel/tp', pp: '/parallel/pp', dp: '/parallel/dp', cp: '/parallel/cp', ep: '/parallel/ep', etp: '/parallel/etp',
  rcl: '/parallel/recompute_layers', rcm: '/parallel/recompute_modules', fsl: '/parallel/first_stage_layers', lsl: '/parallel/last_stage_layers',
  vpp: '/parallel/vpp', mbs: '/parallel/micro_batch', sp: '/parallel/sequence_parallel',
  rc: '/parallel/recompute', zero: '/parallel/zero', sched: '/parallel/schedule', ofl: '/parallel/offload_layers',
  ...Object.fromEntries(Object.entries(EXTRA_FIELDS).map(([k, path]) => [k, `/${path.join('/')}`])),
};
export const PARALLEL_KEYS = ['tp', 'pp', 'dp', 'cp', 'ep', 'etp', 'vpp', 'sched', 'mbs', 'sp', 'rc', 'zero', 'rcl', 'rcm', 'fsl', 'lsl', 'ofl'];
/** parallel.schedule's values (json_io.cpp kSchedules), each with its name in words. */
export const SCHEDULES = [['1f1b', '1F1B'], ['interleaved', 'Interleaved 1F1B'], ['zb-h1', 'Zero bubble ZB-H1'],
  ['zb-v', 'Zero bubble ZB-V (V shape, vpp 2)'], ['dualpipe', 'DualPipe (DeepSeek-V3)'], ['dualpipev', 'DualPipeV (V shape, vpp 2)']];
/** Every parallel field empty: the search is free. */
export const UNPINNED = Object.freeze(Object.fromEntries(PARALLEL_KEYS.map((k) => [k, ''])));
/** Whether a state pins any parallel field. */
export const isPinned = (state) => PARALLEL_KEYS.some((k) => state[k] !== '' && state[k] !== undefined);

/** Fields of a custom model and GPU the form shows (others are carried along unchanged). */
export const MODEL_FIELDS = ['name', 'layers', 'hidden', 'heads', 'kv_heads', 'ffn_hidden', 'vocab', 'activation',
  'head_dim', 'qk_norm', 'linear_bias', 'attention_sinks', 'mtp_layers', 'hybrid_pattern',
  'tied_embeddings', 'dropout', 'learned_positions', 'rope_theta', 'nominal_params'];
/** Model booleans whose default depends on the activation and the framework (docs/cli.md). */
export const MODEL_STYLE_BOOLEANS = new Set(['tied_embeddings', 'dropout', 'learned_positions']);
/** Multi-head latent attention of a custom model: docs/cli.md model.mla. */
export const MLA_FIELDS = ['q_lora_rank', 'kv_lora_rank', 'qk_nope_head_dim', 'qk_rope_head_dim', 'v_head_dim'];
export const MOE_FIELDS = ['experts', 'top_k', 'shared_experts', 'expert_ffn_hidden', 'dense_layers', 'every', 'groups', 'group_top_k'];
/** Local attention (sliding window or chunks) of a custom model: docs/cli.md model.local_attention. */
export const LOCAL_ATTENTION_FIELDS = ['tokens', 'global_every', 'chunked'];
/** A hybrid model's Mamba-2 mixers: docs/cli.md model.mamba. */
export const MAMBA_FIELDS = ['heads', 'head_dim', 'state', 'groups', 'conv_kernel', 'chunk'];
/** Model fields that are true or false (the form's select says 'true' or 'false'). */
export const MODEL_BOOLEANS = new Set(['qk_norm', 'linear_bias', 'attention_sinks', 'chunked', 'tied_embeddings', 'dropout', 'learned_positions']);
export const GPU_FIELDS = ['name', 'architecture', 'memory_gb', 'bf16_tflops', 'fp8_tflops', 'fp4_tflops', 'hbm_gbytes_per_s',
  'nvlink_gbytes_per_s', 'network_gbytes_per_s', 'host_link_gbytes_per_s', 'host_memory_gb', 'sm_count', 'mamf_fraction_bf16', 'mamf_fraction_fp8',
  // what NCCL reaches of the links, and the compute constants `calibrate` fits
  'nvlink_efficiency', 'network_efficiency', 'nvlink_latency_us', 'network_latency_us', 'attention_scale', 'softmax_exp_per_clock_per_sm', 'host_kernel_us'];
const TEXT_FIELDS = new Set(['name', 'activation', 'architecture', 'source', 'id', 'preset', 'hybrid_pattern']);

/** Text as typed -> a number when it spells one ("8k", "4,096"), else the text (the engine rejects it by name). */
export function typed(text, kind = 'count') {
  if (typeof text !== 'string') return text;
  const n = parseQuantity(text, kind);
  return n === null ? text.trim() : n;
}

const booleanOrTyped = (key, v, kind) => {
  if (MODEL_BOOLEANS.has(key) && (v === 'true' || v === 'false')) return v === 'true';
  return TEXT_FIELDS.has(key) || typeof v !== 'string' ? v : typed(v, kind);
};

function specToDocument(spec, kind) {
  const out = {};
  for (const [k, v] of Object.entries(spec)) {
    if (MODEL_BLOCKS.includes(k)) {
      if (v && Object.values(v).some((x) => x !== '' && x !== null)) {
        out[k] = {};
        for (const [mk, mv] of Object.entries(v)) if (mv !== '' && mv !== null) out[k][mk] = booleanOrTyped(mk, mv, kind);
      } else if (v === null) {
        out[k] = null;
      }
    } else if (v === '' || v === undefined) {
      // empty: left out, so the engine reports a missing required field (or takes its default)
    } else {
      out[k] = booleanOrTyped(k, v, kind);
    }
  }
  return out;
}

function mergeInto(target, extra) {
  for (const [k, v] of Object.entries(extra || {})) {
    if (v && typeof v === 'object' && !Array.isArray(v) && target[k] && typeof target[k] === 'object') mergeInto(target[k], v);
    else target[k] = v;
  }
  return target;
}

/** The scenario document for a page state. */
export function toScenario(state) {
  const doc = { schema_version: 1 };
  const or = (key) => withDefault(state, key);
  doc.model = typeof state.model === 'string' ? or('model') : specToDocument(state.model, 'count');
  doc.cluster = { gpu: typeof state.gpu === 'string' ? or('gpu') : specToDocument(state.gpu, 'decimal') };
  doc.cluster.gpus = typed(or('gpus'));
  // Left empty, GPUs per node come from the GPU preset's system (4 on a GB200 NVL72 tray, 8 on
  // a DGX), or 8 without one: the engine's default (json_io.cpp parse_scenario), not the page's.
  if (state.gpn !== '' && state.gpn !== undefined) doc.cluster.gpus_per_node = typed(state.gpn);
  doc.training = {};
  doc.training.seq_len = typed(or('seq'));
  doc.training.global_batch = typed(or('gbs'));
  if (state.prec !== '') doc.training.precision = state.prec;
  const parallel = {};
  for (const k of PARALLEL_KEYS) {
    const v = state[k];
    if (v === '' || v === undefined) continue;
    const name = PATHS[k].split('/')[2];
    if (k === 'sp') parallel[name] = v === 'true' ? true : v === 'false' ? false : v;
    // Recompute modules: "layernorm, moe_act" -> ["layernorm", "moe_act"] (the engine names a bad one).
    else if (k === 'rcm') parallel[name] = v.split(',').map((m) => m.trim()).filter((m) => m !== '');
    else if (k === 'rc' || k === 'sched') parallel[name] = v;
    else parallel[name] = typed(v);
  }
  if (Object.keys(parallel).length) doc.parallel = parallel;
  for (const [k, path] of Object.entries(EXTRA_FIELDS)) {
    const v = state[k];
    if (v === '' || v === undefined) continue;
    let holder = doc;
    for (const name of path.slice(0, -1)) holder = (holder[name] = holder[name] || {});
    holder[path[path.length - 1]] = BOOLEAN_KEYS.has(k) ? (v === 'true' ? true : v === 'false' ? false : v) : typed(v, kindOf(k));
  }
  if (state.x) mergeInto(doc, JSON.parse(JSON.stringify(state.x)));
  return doc;
}

const str = (v) => (v === undefined || v === null ? '' : String(v));

/** A spec as the form holds it: numbers as the text fields show them, nested blocks likewise. */
export function specToState(spec) {
  const out = {};
  for (const [k, v] of Object.entries(spec)) {
    if (MODEL_BLOCKS.includes(k)) out[k] = v ? Object.fromEntries(Object.entries(v).map(([mk, mv]) => [mk, str(mv)])) : null;
    else out[k] = typeof v === 'number' ? String(v) : v;
  }
  return out;
}

/**
 * A page state for a scenario document (an example file). Fields the form does not show
 * (e.g. parallel.first_stage_layers) are kept in `x` so nothing is lost;
 * `name` and `description` are dropped (they do not change the plan).
 */
export function fromScenario(doc) {
  const rest = JSON.parse(JSON.stringify(doc));
  const state = { ...emptyState(), ...UI_DEFAULTS };
  delete rest.schema_version; delete rest.name; delete rest.description;
  state.model = typeof rest.model === 'string' ? rest.model : specToState(rest.model || {});
  delete rest.model;
  const cluster = rest.cluster || {};
  state.gpu = typeof cluster.gpu === 'string' ? cluster.gpu : specToState(cluster.gpu || {});
  state.gpus = str(cluster.gpus); state.gpn = str(cluster.gpus_per_node);
  delete cluster.gpu; delete cluster.gpus; delete cluster.gpus_per_node;
  const training = rest.training || {};
  state.seq = str(training.seq_len); state.gbs = str(training.global_batch); state.prec = str(training.precision);
  delete training.seq_len; delete training.global_batch; delete training.precision;
  const parallel = rest.parallel || {};
  for (const k of PARALLEL_KEYS) {
    const name = PATHS[k].split('/')[2];
    if (name in parallel) {
      state[k] = Array.isArray(parallel[name]) ? parallel[name].join(', ') : str(parallel[name]);
      delete parallel[name];
    }
  }
  const x = {};
  for (const [k, v] of Object.entries(rest)) {
    if (v && typeof v === 'object' && !Array.isArray(v)) { if (Object.keys(v).length) x[k] = v; }
    else x[k] = v;
  }
  state.x = Object.keys(x).length ? x : null;
  return liftReportFields(state);
}

/**
 * The form field an engine error path points at: '/parallel/tp' -> 'tp', '/model/hidden' ->
 * 'model.hidden', '/model/moe/top_k' -> 'model.moe.top_k', '/cluster/gpu/memory_gb' ->
 * 'gpu.memory_gb'. Null when no field shows it.
 */
export function fieldForPath(path) {
  if (typeof path !== 'string') return null;
  for (const [key, p] of Object.entries(PATHS)) if (path === p) return key;
  if (path.startsWith('/parallel/recompute_modules/')) return 'rcm';  // one entry of the list
  let m = /^\/model\/(moe|mla|local_attention|mamba)\/([a-z_]+)$/.exec(path);
  if (m) return `model.${m[1]}.${m[2]}`;
  m = /^\/model\/(moe|[a-z_]+)$/.exec(path);
  if (m) return `model.${m[1]}`;
  if (path === '/cluster/gpu/preset') return 'gpu';
  m = /^\/cluster\/gpu\/([a-z0-9_]+)$/.exec(path);
  if (m) return `gpu.${m[1]}`;
  return null;
}

/**
 * The GPU a state names, as the form shows it: a preset, a preset with overrides
 * ({"preset": id, field: value, ...}: the preset's figures, changed where given; the engine
 * keeps the preset's calibration), or a custom spec. Null when the preset is not known (yet).
 */
export function resolveGpu(gpu, presets) {
  const gpus = presets ? presets.gpus : {};
  if (typeof gpu === 'string') return gpus[gpu] || null;
  if (!gpu || typeof gpu !== 'object') return null;
  if (typeof gpu.preset !== 'string') return gpu;
  const base = gpus[gpu.preset];
  if (!base) return null;
  const { preset, ...overrides } = gpu;
  return { ...base, ...overrides, name: `${base.name} (changed)` };
}

/** The fields a preset with overrides changes (none for a preset or a custom spec). */
export const gpuOverrides = (gpu) => (gpu && typeof gpu === 'object' && typeof gpu.preset === 'string'
  ? Object.keys(gpu).filter((k) => k !== 'preset' && k !== 'memory_gib') : []);

/** A preset (as the presets command returns it) turned into an editable custom spec. */
export function presetToCustom(preset, kind) {
  const spec = specToState(preset);
  // No longer the published model: count parameters from the architecture; drop provenance.
  delete spec.id; delete spec.source; delete spec.nominal_params;
  spec.name = `${preset.name} (edited)`;
  if (kind === 'model' && !('moe' in spec)) spec.moe = null;
  return spec;
}

export { SCENARIO_KEYS };
