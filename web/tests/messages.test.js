// @vitest-environment node
// The engine's codes in words: what to do, with the code kept for the details line.
import { describe, expect, it } from 'vitest';
import { humanError, labelOf, pinsToRelease, plural, reasonText } from '../src/state/messages.js';
import { DEFAULT_STATE } from '../src/state/url.js';
import { fmtCapacity, fmtPct, fmtShare } from '../src/state/format.js';

describe('input errors in words', () => {
  it('says what to type, and keeps the code for the details line', () => {
    const e = humanError({ code: 'schema.wrong_type', path: '/cluster/gpus', message: '/cluster/gpus must be an integer, not a string' });
    expect(e.field).toBe('gpus');
    expect(e.text).toBe('GPUs must be a whole number, for example 1024 or 16k.');
    expect(e.details).toBe('schema.wrong_type at /cluster/gpus: /cluster/gpus must be an integer, not a string');
    expect(e.text).not.toMatch(/schema\.|\/cluster/);
  });
  it('states the range the engine gives', () => {
    const e = humanError({ code: 'input.out_of_range', path: '/cluster/gpus', message: '/cluster/gpus = 0 is out of range: it must be between 1 and 1048576' });
    expect(e.text).toBe('GPUs must be between 1 and 1048576.');
  });
  it('names nested fields by their labels', () => {
    expect(labelOf('model.hidden')).toBe('Model hidden size');
    expect(humanError({ code: 'input.not_integer', path: '/training/seq_len', message: '/training/seq_len = 8.5 must be a whole number' }).text)
      .toBe('Sequence length must be a whole number, for example 8192 or 8k.');
    expect(humanError({ code: 'schema.wrong_type', path: '/training/token_budget', message: 'x' }).text)
      .toBe('Token budget must be a number, for example 300B or 15T.');
  });
});

describe('why nothing fits', () => {
  it('reads codes as reasons and finds the pins to release', () => {
    expect(reasonText('plan.layers_not_divisible')).toBe('the layers do not split over the pipeline stages');
    expect(reasonText('plan.something_new')).toBe('something new');
    // The default example pins tp and pp (dp follows): a GPU-count mismatch releases those.
    expect(pinsToRelease(['plan.gpu_count_mismatch'], DEFAULT_STATE)).toEqual(['tp', 'pp', 'cp']);
    expect(pinsToRelease(['plan.out_of_memory'], { ...DEFAULT_STATE, rc: '', zero: '' })).toEqual(['pp', 'tp', 'mbs']);
    expect(plural(1, 'configuration')).toBe('1 configuration');
    expect(plural(1024, 'configuration')).toBe('1,024 configurations');
  });
});

describe('percentages round half away from zero, as the CLI prints them', () => {
  it('gives 43.7% for the JSON\'s 0.4365 (toFixed gives 43.6% from the binary 43.6499…)', () => {
    expect((0.4365 * 100).toFixed(1)).toBe('43.6');  // the trap
    expect(fmtPct(0.4365)).toBe('43.7%');
    expect(fmtPct(0.12345, 2)).toBe('12.35%');
    expect(fmtPct(-0.0515)).toBe('-5.2%');
    expect(fmtPct(-0.0001)).toBe('0.0%');
    expect(fmtPct(Number.NaN)).toBe('–');
  });
});

describe('figures', () => {
  it('an "80GB" part reads 80 GiB (85.9 GB); impossible shares are not shown', () => {
    expect(fmtCapacity(85.8993)).toBe('80 GiB (85.9 GB)');
    expect(fmtCapacity(80)).toBe('80.0 GB');
    expect(fmtShare(0.466)).toBe('46.6%');
    expect(fmtShare(1.21)).toBeNull();
    expect(fmtShare(-0.1)).toBeNull();
  });
});

describe('groupDigits writes numbers as toLocaleString(\'en-US\') does, without Intl', () => {
  it('agrees on integers, fractions, negatives and huge values', async () => {
    const { groupDigits } = await import('../src/state/format.js');
    for (const n of [0, 7, 999, 1000, 1024, 16384, 123456789, 2 ** 53, -4096, 1.5, 1234.5678, 0.0001, 99999.9996, -0.0004]) {  // exact up to 2^53, as the page's figures are
      expect(groupDigits(n), String(n)).toBe(n.toLocaleString('en-US'));
      expect(groupDigits(n, 6), String(n)).toBe(n.toLocaleString('en-US', { maximumFractionDigits: 6 }));
    }
  });
});
