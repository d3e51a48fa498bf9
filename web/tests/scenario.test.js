// @vitest-environment node
// Page state <-> scenario documents, and engine error paths -> form fields.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fieldForPath, fromScenario, presetToCustom, toScenario, typed } from '../src/state/scenario.js';
import { DEFAULT_STATE } from '../src/state/url.js';

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

  it('the default state is the worked example', () => {
    const doc = JSON.parse(readFileSync(new URL('gpt3-175b-1024-a100.json', dir), 'utf8'));
    expect(toScenario(DEFAULT_STATE)).toEqual(strip(doc));
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
