// The page state in the URL fragment (Compiler Explorer style). Pure: no DOM,
// no window; async only because CompressionStream is.
//
// Format v1:  #v=1&model=gpt3-175b&gpu=a100-80gb&gpus=1024&gpn=8&seq=2048&gbs=1536&prec=bf16&tp=8...
//   readable keys when the model and GPU are presets; a custom model or GPU (or extra scenario
//   fields) switch the scenario part to  z=<base64url(deflate-raw(JSON))>.  UI keys (sel, tab,
//   fmt) always stay readable and are written only when they differ from their defaults.
// Older formats run through UPGRADES (v0 -> v1 -> ...) before parsing, so old links keep working;
// their fixtures live in tests/fixtures/links.json forever.

export const URL_VERSION = 1;
/**
 * Optional inputs of the design report, added to v1 after it shipped (additive: old links have
 * none, so they encode exactly as before). Key -> [scenario object, field] (json_io.cpp).
 * Links written before these keys existed carried them inside `x`; liftReportFields moves them.
 */
export const REPORT_FIELDS = {
  tokens: ['training', 'token_budget'], storage: ['report', 'storage_gbytes_per_s'],
  failrate: ['report', 'failures_per_gpu_hour'], restart: ['report', 'restart_s'],
};
/**
 * The cluster's topology (issue #15), added to v1 the same way: the NVLink domain and the
 * scale-out network (json_io.cpp parse_scenario). Key -> path in the scenario. Empty: the GPU
 * preset's system decides, so old links open exactly as before.
 */
export const TOPOLOGY_FIELDS = {
  nvd: ['cluster', 'nvlink_domain_gpus'], nics: ['cluster', 'network', 'nics_per_node'],
  nicg: ['cluster', 'network', 'nic_gbits_per_s'], rail: ['cluster', 'network', 'rail_optimized'],
  osub: ['cluster', 'network', 'oversubscription'],
};
/**
 * The training stack (docs/cli.md training.framework; issue #25): empty is the engine's default,
 * Megatron-Core, so old links open as before.
 */
export const TRAINING_FIELDS = {
  fw: ['training', 'framework'],
  // Mixture-of-experts dispatch (issue #22): empty is the framework's (the all-to-all, no overlap).
  disp: ['training', 'moe_dispatcher'], epov: ['training', 'overlap_moe_expert_parallel_comm'],
  // The framework's switches, each overridable (docs/cli.md; issue #25): empty is the framework's.
  fa: ['training', 'flash_attention'], ogr: ['training', 'overlap_grad_reduce'],
  opg: ['training', 'overlap_param_gather'], tpo: ['training', 'tp_comm_overlap'],
  gr32: ['training', 'grad_reduce_in_fp32'], cg: ['training', 'cuda_graphs'], f8r: ['training', 'fp8_recipe'],
  osd: ['training', 'optimizer_state_dtype'], hr: ['training', 'memory_headroom'],
  // SwiGLU's input kept in FP8 for the backward (Megatron-Core's TransformerConfig field; added
  // after v1 shipped, appended so old links encode as before): empty is off.
  f8s: ['training', 'activation_func_fp8_input_store'],
  // FP8 weights gathered in FP8 (Megatron --fp8-param-gather; appended after v1, as f8s): empty is off.
  f8p: ['training', 'fp8_param_gather'],
  // Attention's matmuls in FP8 (TransformerConfig.fp8_dot_product_attention; appended, as f8s).
  f8a: ['training', 'fp8_dot_product_attention'],
};
/** Every optional field with a key of its own: key -> path in the scenario. */
export const EXTRA_FIELDS = { ...REPORT_FIELDS, ...TOPOLOGY_FIELDS, ...TRAINING_FIELDS };
/** What liftReportFields moves out of `x`: the fields above, and parallel.schedule, which a page
 * from before its key carried in `x` (an example file that names a schedule). */
const LIFTED_FIELDS = { ...EXTRA_FIELDS, sched: ['parallel', 'schedule'] };
/** Scenario keys in their fixed order (hash stability: encode(decode(h)) === h). Keys added after
 * v1 shipped go at the end (`sched`: parallel.schedule, empty = the engine's, from vpp), so a link
 * without them encodes exactly as before. */
export const SCENARIO_KEYS = ['model', 'gpu', 'gpus', 'gpn', 'seq', 'gbs', 'prec',
  'tp', 'pp', 'dp', 'cp', 'ep', 'etp', 'vpp', 'mbs', 'sp', 'rc', 'zero', 'rcl', 'rcm', 'fsl', 'lsl', ...Object.keys(REPORT_FIELDS),
  ...Object.keys(TOPOLOGY_FIELDS), ...Object.keys(TRAINING_FIELDS), 'sched', 'ofl'];
export const UI_KEYS = ['sel', 'tab', 'fmt'];
export const TABS = ['plan', 'examples', 'launch', 'report', 'calibrate'];
export const UI_DEFAULTS = { sel: '0', tab: 'plan', fmt: 'megatron' };
/** Limits for untrusted links: longer hashes or payloads are refused with a banner. */
export const MAX_HASH_CHARS = 16384;
export const MAX_PAYLOAD_BYTES = 65536;
const MAX_VALUE_CHARS = 200;

/**
 * The page opens on examples/gpt3-175b-1024-a100.json (a test keeps the two in step) with one
 * difference: dp is left to the search, so it follows the GPU count (1024 GPUs / (8·8) = 16 as in
 * the example; 512 GPUs give 8 instead of "no configuration fits").
 */
export const DEFAULT_STATE = Object.freeze({
  model: 'gpt3-175b', gpu: 'a100-80gb', gpus: '1024', gpn: '8', seq: '2048', gbs: '1536', prec: 'bf16',
  tp: '8', pp: '8', dp: '', cp: '1', ep: '1', etp: '', vpp: '1', mbs: '1', sp: 'true', rc: 'selective', zero: '0',
  tokens: '', storage: '', failrate: '', restart: '', nvd: '', nics: '', nicg: '', rail: '', osub: '', fw: '', disp: '', epov: '',
  fa: '', ogr: '', opg: '', tpo: '', gr32: '', cg: '', f8r: '', osd: '', hr: '', rcl: '', rcm: '', fsl: '', lsl: '',
  f8s: '', f8p: '', f8a: '', sched: '', ofl: '', x: null, ...UI_DEFAULTS,
});

/** A state with every scenario field empty (what a readable link starts from). */
export function emptyState() {
  const s = { x: null, ...UI_DEFAULTS };
  for (const k of SCENARIO_KEYS) s[k] = '';
  return s;
}

/**
 * Moves the optional fields found in the extra fields `x` (report inputs, topology: numbers,
 * booleans or text) into their own keys, so the form shows them; objects left empty are
 * dropped. A key that is already set wins. Pure.
 */
export function liftReportFields(state) {
  if (!state.x) return state;
  const x = JSON.parse(JSON.stringify(state.x));
  const out = { ...state };
  for (const [key, path] of Object.entries(LIFTED_FIELDS)) {
    const parents = [x];
    for (const name of path.slice(0, -1)) {
      const parent = parents[parents.length - 1];
      parents.push(parent && typeof parent[name] === 'object' && !Array.isArray(parent[name]) ? parent[name] : null);
    }
    const holder = parents[parents.length - 1];
    const field = path[path.length - 1];
    const v = holder ? holder[field] : undefined;
    if (!((typeof v === 'number' && Number.isFinite(v)) || typeof v === 'string' || typeof v === 'boolean')) continue;
    if (out[key] === '' || out[key] === undefined) out[key] = String(v);
    delete holder[field];
    for (let i = path.length - 1; i > 0; i--) {
      const parent = parents[i - 1];
      if (parent[path[i - 1]] && !Object.keys(parent[path[i - 1]]).length) delete parent[path[i - 1]];
    }
  }
  out.x = Object.keys(x).length ? x : null;
  return out;
}

// ---- upgrade chain ---------------------------------------------------------------------------

/** Preset ids that were renamed; old links map to the new id. */
export const PRESET_ALIASES = { 'h100-sxm-80gb': 'h100-sxm', 'h100-80gb': 'h100-sxm', 'gpt3': 'gpt3-175b' };

/**
 * v0: the unversioned draft format (hw=, mbs=, gbs=)
 * (#model=llama3-70b&hw=h100-sxm-80gb&gpus=1024&tp=8&pp=4&cp=1&ep=1&mbs=1&gbs=1024):
 * `hw` became `gpu`, and preset ids drifted.
 */
function upgradeV0toV1(params) {
  const out = new Map();
  for (const [k, v] of params) {
    const key = k === 'hw' ? 'gpu' : k;
    out.set(key, (key === 'gpu' || key === 'model') && PRESET_ALIASES[v] ? PRESET_ALIASES[v] : v);
  }
  return out;
}
const UPGRADES = { 0: upgradeV0toV1 };

// ---- base64url + deflate-raw -----------------------------------------------------------------

function toBase64Url(bytes) {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error('not base64url');
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

async function deflateRaw(text) {
  // `new Response(bytes).body` rather than Blob.stream(): jsdom's Blob has no stream().
  const stream = new Response(new TextEncoder().encode(text)).body.pipeThrough(new CompressionStream('deflate-raw'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Inflates at most maxBytes (a small link must not expand into a huge document). */
async function inflateRaw(bytes, maxBytes) {
  const reader = new Response(bytes).body.pipeThrough(new DecompressionStream('deflate-raw')).getReader();
  const chunks = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new LinkError('oversized', 'this link expands to more than 64 KB');
    }
    chunks.push(value);
  }
  const all = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) { all.set(c, at); at += c.length; }
  return new TextDecoder('utf-8', { fatal: true }).decode(all);
}

// ---- validation of untrusted content ----------------------------------------------------------

class LinkError extends Error {
  constructor(kind, message) { super(message); this.kind = kind; }
}

const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isPrimitive = (v) => v === null || ['string', 'number', 'boolean'].includes(typeof v);

function checkValue(key, v) {
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v !== 'string') throw new LinkError('corrupt', `link field ${key} is not text`);
  if (v.length > MAX_VALUE_CHARS) throw new LinkError('corrupt', `link field ${key} is too long`);
  return v;
}

/** A model's nested blocks, each a flat object of primitives (or null): links carry them and the form edits them. */
export const MODEL_BLOCKS = ['moe', 'mla', 'local_attention', 'mamba'];

/** A custom model or GPU: a flat object of primitives (a model may have flat moe, mla and local_attention blocks). */
function checkSpec(key, v) {
  if (typeof v === 'string') return checkValue(key, v);
  if (!isPlainObject(v)) throw new LinkError('corrupt', `link field ${key} is malformed`);
  const out = {};
  for (const [k, val] of Object.entries(v)) {
    if (key === 'model' && MODEL_BLOCKS.includes(k) && (val === null || isPlainObject(val))) {
      if (val && !Object.values(val).every(isPrimitive)) throw new LinkError('corrupt', `link field model.${k} is malformed`);
      out[k] = val ? { ...val } : null;
    } else if (isPrimitive(val)) {
      out[k] = typeof val === 'string' && val.length > 2000 ? val.slice(0, 2000) : val;
    } else {
      throw new LinkError('corrupt', `link field ${key}.${k} is malformed`);
    }
  }
  return out;
}

function scenarioFromObject(obj, state, ignored) {
  if (!isPlainObject(obj)) throw new LinkError('corrupt', 'the link payload is not an object');
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'model' || k === 'gpu') state[k] = checkSpec(k, v);
    else if (SCENARIO_KEYS.includes(k)) state[k] = checkValue(k, v);
    else if (k === 'x') {
      if (v !== null && !isPlainObject(v)) throw new LinkError('corrupt', 'link field x is malformed');
      state.x = v;
    } else ignored.push(k);
  }
}

function setUi(state, key, value) {
  if (key === 'sel' && /^\d{1,3}$/.test(value)) state.sel = String(Number(value));
  else if (key === 'tab' && TABS.includes(value)) state.tab = value;
  else if (key === 'fmt' && /^[a-z0-9-]{1,40}$/.test(value)) state.fmt = value;
}

// ---- public API -------------------------------------------------------------------------------

/** Whether the scenario part needs the compressed payload (custom specs or extra fields). */
export function needsPayload(state) {
  return typeof state.model !== 'string' || typeof state.gpu !== 'string' ||
         (state.x !== null && state.x !== undefined && Object.keys(state.x).length > 0);
}

/** The fragment (without '#') for a state. */
export async function encodeHash(state) {
  const parts = [['v', String(URL_VERSION)]];
  if (needsPayload(state)) {
    const payload = {};
    for (const k of SCENARIO_KEYS) if (state[k] !== '' && state[k] !== undefined) payload[k] = state[k];
    if (state.x && Object.keys(state.x).length) payload.x = state.x;
    parts.push(['z', toBase64Url(await deflateRaw(JSON.stringify(payload)))]);
  } else {
    for (const k of SCENARIO_KEYS) if (state[k] !== '' && state[k] !== undefined) parts.push([k, state[k]]);
  }
  for (const k of UI_KEYS) if (state[k] !== undefined && state[k] !== UI_DEFAULTS[k]) parts.push([k, state[k]]);
  return parts.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
}

/**
 * Reads a fragment ('#...' or '...'). Never throws: returns {state, warning}, where warning is
 * null or {kind: 'corrupt'|'oversized'|'newer'|'unknown', message}. On anything but 'unknown'
 * the state is DEFAULT_STATE, so a bad link never leaves a blank page.
 */
export async function decodeHash(hash) {
  const text = String(hash || '').replace(/^#/, '');
  if (!text) return { state: { ...DEFAULT_STATE }, warning: null };
  try {
    if (text.length > MAX_HASH_CHARS) throw new LinkError('oversized', `this link is longer than ${MAX_HASH_CHARS} characters`);
    let params = new Map();
    for (const part of text.split('&')) {
      if (!part) continue;
      const eq = part.indexOf('=');
      const key = eq < 0 ? part : part.slice(0, eq);
      let value;
      try {
        value = decodeURIComponent((eq < 0 ? '' : part.slice(eq + 1)).replace(/\+/g, ' '));
      } catch {
        throw new LinkError('corrupt', 'this link has a malformed escape');
      }
      params.set(key, value);
    }
    let version = 0;
    if (params.has('v')) {
      if (!/^\d{1,4}$/.test(params.get('v'))) throw new LinkError('corrupt', 'this link has no valid version');
      version = Number(params.get('v'));
      params.delete('v');
    } else if (!params.has('model')) {
      throw new LinkError('corrupt', 'this link is not a pplan link');
    }
    if (version > URL_VERSION) {
      throw new LinkError('newer', `this link was made by a newer pplan (link format v${version}; this page reads up to v${URL_VERSION})`);
    }
    for (let v = version; v < URL_VERSION; v++) params = UPGRADES[v](params);

    const state = emptyState();
    const ignored = [];
    if (params.has('z')) {
      const json = await inflateRaw(fromBase64Url(params.get('z')), MAX_PAYLOAD_BYTES);
      scenarioFromObject(JSON.parse(json), state, ignored);
      params.delete('z');
      for (const k of SCENARIO_KEYS) if (params.has(k)) { ignored.push(k); params.delete(k); }
    }
    for (const [k, v] of params) {
      if (SCENARIO_KEYS.includes(k)) state[k] = checkValue(k, v);
      else if (UI_KEYS.includes(k)) setUi(state, k, v);
      else ignored.push(k);
    }
    if (state.model === '' && state.gpu === '') throw new LinkError('corrupt', 'this link names no model and no GPU');
    const lifted = liftReportFields(state);
    const warning = ignored.length
      ? { kind: 'unknown', message: `ignored unknown link fields: ${ignored.slice(0, 5).join(', ').slice(0, 120)}` }
      : null;
    return { state: lifted, warning };
  } catch (e) {
    const kind = e instanceof LinkError ? e.kind : 'corrupt';
    const message = e instanceof LinkError ? e.message : 'this link looks truncated or corrupt';
    return { state: { ...DEFAULT_STATE }, warning: { kind, message } };
  }
}
