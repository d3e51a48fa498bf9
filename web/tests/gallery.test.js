// @vitest-environment node
// The gallery shows each published run as it was run: its example file is the scenario of its case
// in tests/data/published-runs.json, and the engine's figure for it is docs/accuracy.md's.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { request } from '../src/engine/index.js';
import { GALLERY, bestWithPublishedPins, changesFrom, exampleScenario } from '../src/data/gallery.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cases = new Map(JSON.parse(readFileSync(resolve(root, 'tests/data/published-runs.json'), 'utf8')).cases.map((c) => [c.id, c]));
const accuracy = readFileSync(resolve(root, 'docs/accuracy.md'), 'utf8');

/** docs/accuracy.md's row for a case of the worked-examples table: [published, pplan, error]. */
function accuracyRow(id) {
  const row = accuracy.split('\n').find((line) => line.startsWith(`| ${id} | `));
  if (!row) return null;
  return row.split('|').slice(2, 5).map((cell) => cell.trim());
}

const withoutLabels = ({ name, description, ...rest }) => rest;

describe('the gallery prices each run as the accuracy tables do', () => {
  const runs = GALLERY.filter((g) => g.case);
  it('covers the Llama 3 and Megatron-LM 2021 runs', () => {
    expect(runs.length).toBe(12);
  });
  for (const entry of runs) {
    it(`${entry.file} is ${entry.case}, with its published figure`, () => {
      const c = cases.get(entry.case);
      expect(c, `${entry.case} in published-runs.json`).toBeTruthy();
      expect(withoutLabels(exampleScenario(entry.file))).toEqual(withoutLabels(c.scenario));
      expect(c.published.primary).toBe(entry.published.metric);
      const primary = c.published.figures.find((f) => f.metric === c.published.primary);
      expect(primary.value).toBe(entry.published.value);
    });
    it(`${entry.file}: the engine's figure is docs/accuracy.md's`, async () => {
      const row = accuracyRow(entry.case);
      expect(row, `a row for ${entry.case} in docs/accuracy.md`).toBeTruthy();
      const plan = (await request({ command: 'plan', scenario: exampleScenario(entry.file), top: 1 })).plans[0];
      const metric = entry.published.metric;
      // docs/accuracy.md rounds the engine's full double to 0.1; the JSON the page reads carries it
      // to 4 significant digits, so a figure on a rounding edge (43.65%) may print 0.1 apart.
      const [label, shown] = row[1].split(' ');
      expect(label).toBe(metric.toUpperCase());
      expect(Math.abs(parseFloat(shown) - 100 * plan[metric])).toBeLessThanOrEqual(0.051);
      const error = plan[metric] / entry.published.value - 1;
      expect(Math.abs(parseFloat(row[2]) - 100 * error)).toBeLessThanOrEqual(0.052);
    });
  }
});

describe('pplan\'s best with the published pins', () => {
  it('keeps the published layout, frees the rest, and moves Megatron-LM of 2021 to Megatron-Core', () => {
    const doc = exampleScenario('megatron2021-t1-1008.0b-3072-a100.json');
    const best = bestWithPublishedPins(doc);
    expect(best.parallel).toEqual({ tp: 8, pp: 64, dp: 6, cp: 1 });
    expect(best.training.framework).toBe('megatron-core');
    expect(best.model).toEqual(doc.model);
    const llama = bestWithPublishedPins(exampleScenario('llama3-405b-8k-16384-h100.json'));
    expect(llama.training.framework).toBe('torchtitan');
  });
  it('names what it changes: sequence parallelism and selective recomputation for the 1T run', async () => {
    const doc = exampleScenario('megatron2021-t1-1008.0b-3072-a100.json');
    const bestDoc = bestWithPublishedPins(doc);
    const asRun = (await request({ command: 'plan', scenario: doc, top: 1 })).plans[0];
    const best = (await request({ command: 'plan', scenario: bestDoc, top: 1 })).plans[0];
    const changes = changesFrom(asRun, best, doc, bestDoc);
    expect(changes[0]).toBe('megatron-core');
    expect(changes).toContain('sequence parallel');
    expect(best.step_time_s).toBeLessThan(asRun.step_time_s);
  });
});
