// @vitest-environment node
// Topology fields (issue #15) and a GPU preset with overrides in the page state, the scenario
// and the link: links carrying them round-trip; links without them open and encode as before.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_STATE, decodeHash, emptyState, encodeHash } from '../src/state/url.js';
import { fieldForPath, fromScenario, gpuOverrides, resolveGpu, toScenario } from '../src/state/scenario.js';

const fixtures = JSON.parse(readFileSync(new URL('./fixtures/links.json', import.meta.url), 'utf8'));
const gb200 = JSON.parse(readFileSync(new URL('../../examples/llama3-405b-1152-gb200.json', import.meta.url), 'utf8'));

describe('topology fields', () => {
  it('go to the scenario at their contract paths, numbers and a boolean', () => {
    const doc = toScenario({ ...DEFAULT_STATE, nvd: '72', gpn: '4', nics: '4', nicg: '400', rail: 'false', osub: '2' });
    expect(doc.cluster.nvlink_domain_gpus).toBe(72);
    expect(doc.cluster.network).toEqual({ nics_per_node: 4, nic_gbits_per_s: 400, rail_optimized: false, oversubscription: 2 });
  });

  it('leave the scenario exactly as before when empty', () => {
    const doc = toScenario(DEFAULT_STATE);
    expect(doc.cluster).toEqual({ gpu: 'a100-80gb', gpus: 1024, gpus_per_node: 8 });
  });

  it('round-trip through a link, readable keys', async () => {
    const state = { ...DEFAULT_STATE, gpu: 'gb200', gpn: '4', nvd: '72', nics: '4', nicg: '400', rail: 'true', osub: '1.5' };
    const hash = await encodeHash(state);
    expect(hash).toContain('&nvd=72&nics=4&nicg=400&rail=true&osub=1.5');
    const back = await decodeHash(hash);
    expect(back.warning).toBeNull();
    expect(back.state).toEqual(state);
    expect(await encodeHash(back.state)).toBe(hash);
  });

  it('old links (without them) open and encode exactly as before', async () => {
    for (const f of fixtures.legacy) {
      const decoded = await decodeHash(f.hash);
      for (const k of ['nvd', 'nics', 'nicg', 'rail', 'osub']) expect(decoded.state[k], f.name).toBe('');
      expect(toScenario(decoded.state).cluster.network, f.name).toBeUndefined();
      expect(toScenario(decoded.state).cluster.nvlink_domain_gpus, f.name).toBeUndefined();
    }
    // The default page's link is unchanged by the new keys.
    expect(await encodeHash(DEFAULT_STATE)).toBe('v=1&model=gpt3-175b&gpu=a100-80gb&gpus=1024&gpn=8&seq=2048&gbs=1536&prec=bf16&tp=8&pp=8&cp=1&ep=1&vpp=1&mbs=1&sp=true&rc=selective&zero=0');
  });

  it('a scenario with a topology shows it in the form and gives back the same scenario', () => {
    const cluster = { gpu: 'gb200', gpus: 1152, gpus_per_node: 4, nvlink_domain_gpus: 72,
      network: { nics_per_node: 4, nic_gbits_per_s: 400, rail_optimized: true, oversubscription: 2 } };
    const state = fromScenario({ ...gb200, cluster });
    expect(state).toMatchObject({ nvd: '72', nics: '4', nicg: '400', rail: 'true', osub: '2' });
    expect(state.x && state.x.cluster).toBeFalsy(); // all lifted into the form's fields
    expect(toScenario(state).cluster).toEqual(cluster);
  });

  it('a network object from an older link inside x moves to its keys, the scenario unchanged', () => {
    const x = { cluster: { nvlink_domain_gpus: 72, network: { nics_per_node: 4, rail_optimized: false } }, parallel: { first_stage_layers: 7 } };
    const state = fromScenario(toScenario(DEFAULT_STATE));
    const lifted = fromScenario(toScenario({ ...state, x }));
    // parallel.first_stage_layers has a control of its own now (fsl): it leaves x too.
    expect(lifted).toMatchObject({ nvd: '72', nics: '4', rail: 'false', fsl: '7', x: null });
    expect(toScenario(lifted).cluster).toEqual(toScenario({ ...state, x }).cluster);
  });

  it('engine errors point at their fields', () => {
    expect(fieldForPath('/cluster/nvlink_domain_gpus')).toBe('nvd');
    expect(fieldForPath('/cluster/network/nic_gbits_per_s')).toBe('nicg');
    expect(fieldForPath('/cluster/network/rail_optimized')).toBe('rail');
    expect(fieldForPath('/cluster/gpu/preset')).toBe('gpu');
  });
});

describe('a GPU preset with overrides', () => {
  const presets = { gpus: { 'a100-80gb': { name: 'A100 80GB', memory_gb: 85.9, network_gbytes_per_s: 25, system: { nvlink_domain_gpus: 8 } } } };
  it('is sent as {"preset": id, ...overrides}, numbers typed, the id as text', () => {
    const doc = toScenario({ ...DEFAULT_STATE, gpu: { preset: 'a100-80gb', network_gbytes_per_s: '12.5' } });
    expect(doc.cluster.gpu).toEqual({ preset: 'a100-80gb', network_gbytes_per_s: 12.5 });
  });
  it('shows the preset\'s figures changed where given', () => {
    const spec = resolveGpu({ preset: 'a100-80gb', network_gbytes_per_s: '12.5' }, presets);
    expect(spec.network_gbytes_per_s).toBe('12.5');
    expect(spec.memory_gb).toBe(85.9);
    expect(spec.system.nvlink_domain_gpus).toBe(8);
    expect(gpuOverrides({ preset: 'a100-80gb', network_gbytes_per_s: '12.5', memory_gb: '40', memory_gib: '40' })).toEqual(['network_gbytes_per_s', 'memory_gb']);
    expect(gpuOverrides('a100-80gb')).toEqual([]);
  });
  it('round-trips through a link', async () => {
    const state = { ...DEFAULT_STATE, gpu: { preset: 'a100-80gb', network_gbytes_per_s: '12.5' } };
    const hash = await encodeHash(state);
    expect(hash).toMatch(/^v=1&z=/);
    const back = await decodeHash(hash);
    expect(back.warning).toBeNull();
    expect(back.state).toEqual({ ...emptyState(), ...state });
    expect(toScenario(back.state).cluster.gpu).toEqual({ preset: 'a100-80gb', network_gbytes_per_s: 12.5 });
  });
});
