// @vitest-environment node
// Page state <-> scenario documents, and engine error paths -> form fields.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SCENARIO_DEFAULTS, fieldForPath, fromScenario, presetToCustom, toScenario, typed } from '../src/state/scenario.js';
import { normalise, readBack } from '../src/state/quantity.js';
import { DEFAULT_STATE, emptyState } from '../src/state/url.js';

const dir = new URL('../../examples/', import.meta.url);
const examples = readdirSync(dir).filter((f) => f.endsWith('.json'));
const strip = ({ name, description, ...rest }) => rest;

describe('scenario mapping', () => {
  it('every example survives scenario -> state -> scenario unchanged', () => {
    for (const f of examples) {
      const doc = JSON.parse(readFileSync(new URL(f, dir), 'utf8'));
      expect(toScenario(fromScenario(doc)), f).toEqual(strip(doc));
    }
  });

  it('the default state is the worked example, dp left to the search (it follows the GPU count)', () => {
    const doc = strip(JSON.parse(readFileSync(new URL('gpt3-175b-1024-a100.json', dir), 'utf8')));
    delete doc.parallel.dp;
    expect(toScenario(DEFAULT_STATE)).toEqual(doc);
  });

  it('empty scenario fields take the documented defaults (partial and v0 links)', () => {
    // #v=1&model=llama3-70b&gpu=h100-sxm&gpus=256: sequence and batch from the worked example; the
    // node size is the engine's, from the GPU preset's system (8 on a DGX H100, 4 on a GB200 tray).
    const doc = toScenario({ ...emptyState(), model: 'llama3-70b', gpu: 'h100-sxm', gpus: '256' });
    expect(doc).toEqual({ schema_version: 1, model: 'llama3-70b', cluster: { gpu: 'h100-sxm', gpus: 256 },
      training: { seq_len: 2048, global_batch: 1536 } });
    expect(toScenario(emptyState()).model).toBe(SCENARIO_DEFAULTS.model);
  });

  it('reads human numbers: binary k for counts, decimal suffixes for tokens, separators dropped', () => {
    expect(typed('8k')).toBe(8192);
    expect(typed('128K')).toBe(131072);
    expect(typed('4,096')).toBe(4096);
    expect(typed('16 384')).toBe(16384);
    expect(typed('1.5k')).toBe(1536);
    expect(typed('15T', 'tokens')).toBe(15e12);
    expect(typed('300B', 'tokens')).toBe(300e9);
    expect(typed('14.8T', 'tokens')).toBe(14.8e12);
    expect(typed('1,5')).toBe('1,5'); // not a number: the engine names the field
    expect(typed('8q')).toBe('8q');
    expect(toScenario({ ...DEFAULT_STATE, seq: '8k', gbs: '2,048', tokens: '15T' })).toMatchObject({
      training: { seq_len: 8192, global_batch: 2048, token_budget: 15e12 } });
  });

  it('writes them back in one normal form', () => {
    expect(normalise('8k')).toBe('8192');
    expect(normalise('4,096')).toBe('4096');
    expect(normalise('14800000000000', 'tokens')).toBe('14.8T');
    expect(normalise('300e9', 'tokens')).toBe('300B');
    expect(normalise('123456789', 'tokens')).toBe('123456789');
    expect(normalise('2e-5', 'decimal')).toBe('2e-5');
    expect(normalise('lots')).toBe('lots');
    expect(readBack('8k')).toBe('8,192');
  });

  it('empty parallel fields are left to the search', () => {
    const doc = toScenario({ ...DEFAULT_STATE, tp: '', pp: '', dp: '', cp: '', ep: '', vpp: '', mbs: '', sp: '', rc: '', zero: '' });
    expect(doc.parallel).toBeUndefined();
    expect(toScenario({ ...DEFAULT_STATE, tp: '', pp: '4', dp: '', cp: '', ep: '', vpp: '', mbs: '', sp: '', rc: '', zero: '' }).parallel).toEqual({ pp: 4 });
  });

  it('sends what is not a number as typed, so the engine names the field', () => {
    expect(typed(' 8 ')).toBe(8);
    expect(typed('1e3')).toBe(1000);
    expect(typed('8x')).toBe('8x');
    expect(typed('')).toBe('');
    expect(toScenario({ ...DEFAULT_STATE, gpus: 'lots' }).cluster.gpus).toBe('lots');
    expect(toScenario({ ...DEFAULT_STATE, sp: 'maybe' }).parallel.sequence_parallel).toBe('maybe');
  });

  it('recompute modules: typed as a comma list, sent as Megatron\'s list, read back from a file', () => {
    const doc = toScenario({ ...DEFAULT_STATE, rc: 'selective', rcm: 'layernorm, moe_act,' });
    expect(doc.parallel.recompute_modules).toEqual(['layernorm', 'moe_act']);
    expect(fromScenario(doc).rcm).toBe('layernorm, moe_act');
    expect(fieldForPath('/parallel/recompute_modules/1')).toBe('rcm');
    expect(fieldForPath('/model/mla/kv_lora_rank')).toBe('model.mla.kv_lora_rank');
  });

  it('maps engine error paths to form fields', () => {
    expect(fieldForPath('/parallel/tp')).toBe('tp');
    expect(fieldForPath('/parallel/micro_batch')).toBe('mbs');
    expect(fieldForPath('/cluster/gpus')).toBe('gpus');
    expect(fieldForPath('/cluster/gpus_per_node')).toBe('gpn');
    expect(fieldForPath('/training/seq_len')).toBe('seq');
    expect(fieldForPath('/model')).toBe('model');
    expect(fieldForPath('/model/hidden')).toBe('model.hidden');
    expect(fieldForPath('/model/moe/top_k')).toBe('model.moe.top_k');
    expect(fieldForPath('/cluster/gpu/memory_gb')).toBe('gpu.memory_gb');
    expect(fieldForPath('/training/token_budget')).toBe('tokens');
    expect(fieldForPath('/report/storage_gbytes_per_s')).toBe('storage');
    expect(fieldForPath('/report/failures_per_gpu_hour')).toBe('failrate');
    expect(fieldForPath('/report/restart_s')).toBe('restart');
    expect(fieldForPath('/')).toBeNull();
    expect(fieldForPath(undefined)).toBeNull();
  });

  it('a preset becomes an editable custom spec without its nominal size', () => {
    const custom = presetToCustom({ id: 'x', name: 'X', layers: 2, nominal_params: 1e9, source: 's', moe: null }, 'model');
    expect(custom).toEqual({ name: 'X (edited)', layers: '2', moe: null });
  });
});
