// @vitest-environment node
// URL state: round trips, hash stability, legacy links, corrupt and hostile links, compression.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_STATE, MAX_HASH_CHARS, SCENARIO_KEYS, decodeHash, emptyState, encodeHash,
} from '../src/state/url.js';
import { fromScenario, toScenario } from '../src/state/scenario.js';

const fixtures = JSON.parse(readFileSync(new URL('./fixtures/links.json', import.meta.url), 'utf8'));
const example = JSON.parse(readFileSync(new URL('../../examples/gpt3-175b-1024-a100.json', import.meta.url), 'utf8'));

const customState = {
  ...DEFAULT_STATE,
  model: {
    name: 'My 13B', layers: '40', hidden: '5120', heads: '40', kv_heads: '40', ffn_hidden: '13824',
    vocab: '32000', activation: 'swiglu', moe: { experts: '8', top_k: '2', shared_experts: '', expert_ffn_hidden: '13824', dense_layers: '' },
  },
  gpu: { name: 'Lab GPU', memory_gb: '96', bf16_tflops: '800', fp8_tflops: '1600', nvlink_gbytes_per_s: '450', network_gbytes_per_s: '50' },
  tp: '', pp: '', sel: '3',
};

async function deflateToBase64Url(text) {
  const stream = new Response(new TextEncoder().encode(text)).body.pipeThrough(new CompressionStream('deflate-raw'));
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  return Buffer.from(bytes).toString('base64url');
}

describe('url state', () => {
  it('the default state is examples/gpt3-175b-1024-a100.json, with dp left to follow the GPU count', () => {
    expect(fromScenario(example)).toEqual({ ...DEFAULT_STATE, dp: '16' });
    expect(DEFAULT_STATE.dp).toBe('');
  });

  it('an empty hash opens the default example without a warning', async () => {
    expect(await decodeHash('')).toEqual({ state: { ...DEFAULT_STATE }, warning: null });
    expect(await decodeHash('#')).toEqual({ state: { ...DEFAULT_STATE }, warning: null });
  });

  it('decode(encode(s)) equals s for preset states (readable keys)', async () => {
    const s = { ...DEFAULT_STATE, tp: '', zero: '1', sel: '4', tab: 'examples' };
    const hash = await encodeHash(s);
    expect(hash).toMatch(/^v=1&model=gpt3-175b&gpu=a100-80gb&gpus=1024/);
    expect(hash).not.toContain('z=');
    expect((await decodeHash(hash)).state).toEqual(s);
  });

  it('decode(encode(s)) equals s for custom specs (compressed payload)', async () => {
    const hash = await encodeHash(customState);
    expect(hash).toMatch(/^v=1&z=[A-Za-z0-9_-]+&sel=3$/);
    const decoded = await decodeHash(`#${hash}`);
    expect(decoded.warning).toBeNull();
    expect(decoded.state).toEqual(customState);
  });

  it('a custom model\'s 2026 fields and nested blocks (local attention, MLA) survive a link', async () => {
    const state = { ...customState, model: { ...customState.model, head_dim: '128', qk_norm: 'true', mtp_layers: '1',
      local_attention: { tokens: '1024', global_every: '6', chunked: 'false' },
      mla: { q_lora_rank: 1536, kv_lora_rank: 512, qk_nope_head_dim: 128, qk_rope_head_dim: 64, v_head_dim: 128 },
      hybrid_pattern: 'M-M*', mamba: { heads: '256', head_dim: '64', state: '256', groups: '8', conv_kernel: '', chunk: '' } } };
    const decoded = await decodeHash(`#${await encodeHash(state)}`);
    expect(decoded.warning).toBeNull();
    expect(decoded.state).toEqual(state);
    expect(toScenario(decoded.state).model.local_attention).toEqual({ tokens: 1024, global_every: 6, chunked: false });
    expect(toScenario(decoded.state).model.qk_norm).toBe(true);
    expect(toScenario(decoded.state).model.hybrid_pattern).toBe('M-M*');
    expect(toScenario(decoded.state).model.mamba).toEqual({ heads: 256, head_dim: 64, state: 256, groups: 8 });
  });

  it('keeps extra scenario fields (x) through the payload', async () => {
    const s = { ...DEFAULT_STATE, x: { training: { dropout: 0.1 }, parallel: { first_stage_layers: 7 } } };
    const decoded = await decodeHash(await encodeHash(s));
    expect(decoded.state).toEqual(s);
  });

  it('the design report inputs round-trip as readable keys, after the old ones, in the same v=1', async () => {
    const s = { ...DEFAULT_STATE, tokens: '300e9', storage: '500', failrate: '2e-5', restart: '300', tab: 'report' };
    const hash = await encodeHash(s);
    expect(hash).toBe('v=1&model=gpt3-175b&gpu=a100-80gb&gpus=1024&gpn=8&seq=2048&gbs=1536&prec=bf16&tp=8&pp=8' +
      '&cp=1&ep=1&vpp=1&mbs=1&sp=true&rc=selective&zero=0&tokens=300e9&storage=500&failrate=2e-5&restart=300&tab=report');
    expect(await decodeHash(hash)).toEqual({ state: s, warning: null });
    // and through the compressed payload, next to a custom model
    const custom = { ...customState, tokens: '1.5e12', restart: '120' };
    const z = await encodeHash(custom);
    expect(z).toMatch(/^v=1&z=[A-Za-z0-9_-]+&sel=3$/);
    expect((await decodeHash(z)).state).toEqual(custom);
    // they reach the scenario where the engine reads them (json_io.cpp)
    const doc = toScenario(s);
    expect(doc.training.token_budget).toBe(3e11);
    expect(doc.report).toEqual({ storage_gbytes_per_s: 500, failures_per_gpu_hour: 2e-5, restart_s: 300 });
  });

  it('a link made before the report keys existed opens with its token budget in the form', async () => {
    const old = { ...DEFAULT_STATE, x: { training: { token_budget: 3e11 }, parallel: { first_stage_layers: 7 } } };
    const { state } = await decodeHash(await encodeHash(old));
    expect(state).toEqual({ ...DEFAULT_STATE, tokens: '300000000000', x: { parallel: { first_stage_layers: 7 } } });
    expect(toScenario(state)).toEqual(toScenario(old));
  });

  it('encode(decode(h)) === h (hash stability) for every fixture and for generated links', async () => {
    // `reencodes`: links from before an additive key, whose fields now move to that key.
    for (const h of fixtures.legacy.filter((f) => f.hash.startsWith('#v=') && !f.reencodes).map((f) => f.hash.slice(1))) {
      expect(await encodeHash((await decodeHash(h)).state)).toBe(h);
    }
    const z = await encodeHash(customState);
    expect(await encodeHash((await decodeHash(z)).state)).toBe(z);
  });

  it('opens every legacy link to the same state, forever', async () => {
    for (const f of fixtures.legacy) {
      const decoded = await decodeHash(f.hash);
      expect(decoded.warning, f.name).toBeNull();
      expect(decoded.state, f.name).toEqual({ ...emptyState(), ...f.state });
    }
  });

  it('values with spaces, unicode and &= survive', async () => {
    const s = { ...DEFAULT_STATE, gpus: '1 024 & =ü' };
    expect((await decodeHash(await encodeHash(s))).state).toEqual(s);
  });

  it('script-like values stay inert text', async () => {
    const evil = '<img src=x onerror=alert(1)>';
    const decoded = await decodeHash(`#v=1&model=${encodeURIComponent(evil)}&gpu=a100-80gb&gpus=%3Cscript%3E`);
    expect(decoded.state.model).toBe(evil);
    expect(decoded.state.gpus).toBe('<script>');
  });
});

describe('corrupt, hostile and foreign links fall back to defaults with a warning', () => {
  const expectFallback = async (hash, kind) => {
    const decoded = await decodeHash(hash);
    expect(decoded.state).toEqual({ ...DEFAULT_STATE });
    expect(decoded.warning).not.toBeNull();
    if (kind) expect(decoded.warning.kind).toBe(kind);
    expect(decoded.warning.message.length).toBeGreaterThan(5);
  };

  it('a truncated payload', async () => {
    const hash = await encodeHash(customState);
    const z = /z=([^&]+)/.exec(hash)[1];
    await expectFallback(`#v=1&z=${z.slice(0, Math.floor(z.length / 2))}`, 'corrupt');
  });
  it('a payload that is not base64url', async () => expectFallback('#v=1&z=@@@', 'corrupt'));
  it('a payload that is not deflate', async () => expectFallback('#v=1&z=AAAAAAAAAAAA', 'corrupt'));
  it('a payload that is not JSON', async () => expectFallback(`#v=1&z=${await deflateToBase64Url('{"model":')}`, 'corrupt'));
  it('a payload that is not an object', async () => expectFallback(`#v=1&z=${await deflateToBase64Url('[1,2]')}`, 'corrupt'));
  it('a payload with nested junk', async () => {
    await expectFallback(`#v=1&z=${await deflateToBase64Url('{"model":{"layers":{"a":[1]}}}')}`, 'corrupt');
    await expectFallback(`#v=1&z=${await deflateToBase64Url('{"gpus":{"toString":1}}')}`, 'corrupt');
  });
  it('a payload that inflates past 64 KB (zip bomb)', async () => {
    await expectFallback(`#v=1&z=${await deflateToBase64Url(JSON.stringify({ gpus: 'a'.repeat(200000) }))}`, 'oversized');
  });
  it('an oversized hash', async () => expectFallback(`#v=1&model=${'x'.repeat(MAX_HASH_CHARS)}`, 'oversized'));
  it('an overlong value', async () => expectFallback(`#v=1&model=gpt3-175b&gpu=a100-80gb&gpus=${'9'.repeat(500)}`, 'corrupt'));
  it('a malformed escape', async () => expectFallback('#v=1&model=%E0%A4%A', 'corrupt'));
  it('a link from a newer pplan', async () => expectFallback('#v=99&model=gpt3-175b', 'newer'));
  it('a bad version', async () => expectFallback('#v=one&model=gpt3-175b', 'corrupt'));
  it('something that is not a pplan link', async () => expectFallback('#section-2', 'corrupt'));
  it('a link with neither model nor GPU', async () => expectFallback('#v=1&gpus=8', 'corrupt'));

  it('unknown keys are ignored with a notice, the rest is kept', async () => {
    const decoded = await decodeHash('#v=1&model=llama3-8b&gpu=h100-sxm&gpus=64&colour=red');
    expect(decoded.state.model).toBe('llama3-8b');
    expect(decoded.state.gpus).toBe('64');
    expect(decoded.warning.kind).toBe('unknown');
    expect(decoded.warning.message).toContain('colour');
  });

  it('bad UI values fall back to their defaults silently', async () => {
    const decoded = await decodeHash('#v=1&model=llama3-8b&gpu=h100-sxm&sel=-1&tab=<b>&fmt=x%20y');
    expect(decoded.warning).toBeNull();
    expect([decoded.state.sel, decoded.state.tab, decoded.state.fmt]).toEqual(['0', 'plan', 'megatron']);
  });

  it('expert TP stays a readable key and reaches the scenario as parallel.etp', async () => {
    const hash = '#v=1&model=deepseek-v3&gpu=h100-sxm&gpus=1024&tp=2&ep=64&etp=1';
    const { state, warning } = await decodeHash(hash);
    expect(warning).toBeNull();
    expect(state.etp).toBe('1');
    expect(await encodeHash(state)).toBe(hash.slice(1));
    expect(toScenario(state).parallel).toMatchObject({ tp: 2, ep: 64, etp: 1 });
  });

  it('every scenario key is in the readable format', () => {
    expect(SCENARIO_KEYS).toEqual(['model', 'gpu', 'gpus', 'gpn', 'seq', 'gbs', 'prec', 'tp', 'pp', 'dp', 'cp', 'ep', 'etp', 'vpp', 'mbs', 'sp', 'rc', 'zero', 'rcl', 'rcm', 'fsl', 'lsl',
      'tokens', 'storage', 'failrate', 'restart', 'nvd', 'nics', 'nicg', 'rail', 'osub', 'fw', 'disp', 'epov',
      'fa', 'ogr', 'opg', 'tpo', 'gr32', 'cg', 'f8r', 'osd', 'hr', 'f8s', 'f8p', 'f8a', 'sched', 'ofl']);
  });
});

describe('the pipeline schedule (sched) and the FP8 SwiGLU input (f8s): keys added to v1 at the end', () => {
  const hash = 'v=1&model=deepseek-v3&gpu=h100-sxm&gpus=2048&prec=fp8&pp=16&ep=64&f8s=true&sched=dualpipe';

  it('a readable link round-trips and reaches the scenario as parallel.schedule and training.activation_func_fp8_input_store', async () => {
    const { state, warning } = await decodeHash(`#${hash}`);
    expect(warning).toBeNull();
    expect([state.sched, state.f8s]).toEqual(['dualpipe', 'true']);
    expect(await encodeHash(state)).toBe(hash);
    const doc = toScenario(state);
    expect(doc.parallel).toMatchObject({ pp: 16, ep: 64, schedule: 'dualpipe' });
    expect(doc.training.activation_func_fp8_input_store).toBe(true);
    expect(toScenario({ ...state, f8s: 'false' }).training.activation_func_fp8_input_store).toBe(false);
    // Empty: neither field is sent (the engine's defaults: the schedule from vpp, the switch off).
    const plain = toScenario({ ...state, f8s: '', sched: '' });
    expect('schedule' in plain.parallel).toBe(false);
    expect('activation_func_fp8_input_store' in plain.training).toBe(false);
  });

  it('keys set out of order encode in the fixed order; a link without them encodes as before', async () => {
    const state = { ...DEFAULT_STATE, sched: 'zb-v', f8s: 'false', fw: 'torchtitan' };
    expect(await encodeHash(state)).toBe(`${await encodeHash(DEFAULT_STATE)}&fw=torchtitan&f8s=false&sched=zb-v`);
    expect(await encodeHash(DEFAULT_STATE)).not.toMatch(/sched|f8s/);
  });

  it('the compressed payload carries them and reads them back', async () => {
    const state = { ...customState, sched: 'zb-h1', f8s: 'true' };
    const encoded = await encodeHash(state);
    expect(encoded).toMatch(/^v=1&z=/);
    const { state: back, warning } = await decodeHash(encoded);
    expect(warning).toBeNull();
    expect([back.sched, back.f8s]).toEqual(['zb-h1', 'true']);
    expect(await encodeHash(back)).toBe(encoded);
  });

  it('a payload that carried them inside x (a page from before their keys) opens with them in the form', async () => {
    const z = await deflateToBase64Url(JSON.stringify({ model: 'deepseek-v3', gpu: 'h100-sxm', gpus: '2048', pp: '16',
      x: { parallel: { schedule: 'dualpipe' }, training: { activation_func_fp8_input_store: true, moe_dispatcher: 'flex' } } }));
    const { state, warning } = await decodeHash(`#v=1&z=${z}`);
    expect(warning).toBeNull();
    expect([state.sched, state.f8s, state.disp, state.x]).toEqual(['dualpipe', 'true', 'flex', null]);
  });

  it('an example file that names them opens with them in the form, and "unpin all" clears the schedule', async () => {
    const doc = JSON.parse(readFileSync(new URL('../../examples/deepseek-v3-2048-h800.json', import.meta.url), 'utf8'));
    const state = fromScenario(doc);
    expect(state.sched).toBe(doc.parallel.schedule);
    expect(state.f8s).toBe(String(doc.training.activation_func_fp8_input_store));
    expect((state.x || {}).parallel).toBeUndefined();
    const { UNPINNED, isPinned } = await import('../src/state/scenario.js');
    expect(UNPINNED.sched).toBe('');
    expect(isPinned({ ...DEFAULT_STATE, ...UNPINNED, sched: 'dualpipe' })).toBe(true);
    expect({ ...state, ...UNPINNED }.sched).toBe('');
  });
});

describe.each([
  ['f8p', 'fp8_param_gather'],
  ['f8a', 'fp8_dot_product_attention'],
])('an FP8 switch added to v1 at the end (%s)', (key, field) => {
  it(`reaches the scenario as training.${field}, and is left out when empty`, async () => {
    const hash = `v=1&model=llama3-70b&gpu=h100-sxm&gpus=64&prec=fp8&${key}=true`;
    const { state, warning } = await decodeHash(`#${hash}`);
    expect(warning).toBeNull();
    expect(state[key]).toBe('true');
    expect(await encodeHash(state)).toBe(hash);
    expect(toScenario(state).training[field]).toBe(true);
    expect(field in toScenario({ ...state, [key]: '' }).training).toBe(false);
  });
});
