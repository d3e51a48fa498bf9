// @vitest-environment node
// The pictures' models: rank placement and the pipeline schedule, against hand-derived values.
import { describe, expect, it } from 'vitest';
import { coordsOfRank, layoutModel, nodesSpanned, rankOf } from '../src/state/layout.js';
import { busySpans, simulateSchedule } from '../src/state/schedule.js';
import { plansToMarkdown } from '../src/state/markdown.js';

describe('layout (Megatron order tp-cp-ep-dp-pp)', () => {
  const p = { tp: 8, pp: 8, dp: 16, cp: 1, ep: 1 };
  it('rankOf inverts coordsOfRank', () => {
    for (let r = 0; r < 1024; r += 37) expect(rankOf(coordsOfRank(r, p), p)).toBe(r);
  });
  it('the method picture: one replica = 8 nodes, one stage per node, TP on NVLink', () => {
    const m = layoutModel(p, 1024, 8);
    expect(m.nodes).toBe(128);
    expect(m.gpusPerReplica).toBe(64);
    expect(m.replicas).toBe(16);
    expect(m.replicaNodes).toBe(8);
    // rank = t + 8·(d + 16·s): replica 0's stage s starts at rank 128·s, node 16·s.
    expect(m.rows.map((r) => r.node)).toEqual([0, 16, 32, 48, 64, 80, 96, 112]);
    expect(m.rows.map((r) => r.stages)).toEqual([[0], [1], [2], [3], [4], [5], [6], [7]]);
    expect(m.links).toEqual({ tp: 'NVLink', cp: null, pp: 'network', dp: 'network', ep: null });
  });
  it('collapses long pipelines so 3072 GPUs stay readable', () => {
    const m = layoutModel({ tp: 8, pp: 64, dp: 6, cp: 1, ep: 1 }, 3072, 8, 10);
    expect(m.replicaNodes).toBe(64);
    expect(m.rows.length).toBe(10);
    expect(m.rows.find((r) => r.gap).gap).toBe(55);
  });
  it('TP wider than a node crosses the network', () => {
    expect(layoutModel({ tp: 16, pp: 1, dp: 4, cp: 1, ep: 1 }, 64, 8).links.tp).toBe('network');
    expect(nodesSpanned(1, 16, 8)).toBe(2);
    expect(nodesSpanned(8, 16, 8)).toBe(16);
  });
  it('small TP shares nodes between replicas', () => {
    const m = layoutModel({ tp: 2, pp: 2, dp: 4, cp: 1, ep: 1 }, 16, 8);
    expect(m.sharedNodes).toBe(true);
    expect(m.links.dp).toBe('NVLink');
    expect(m.links.pp).toBe('network');
  });
});

describe('pipeline schedule', () => {
  it('1F1B takes (m + p − 1)·(f + b): bubble (p−1)/m', () => {
    for (const [pp, m] of [[4, 8], [8, 96], [2, 1], [16, 16]]) {
      const s = simulateSchedule(pp, 1, m);
      expect(s.makespan_units).toBeCloseTo((m + pp - 1) * 3, 9);
      expect(s.bubble_fraction).toBeCloseTo((pp - 1) / m, 9);
      expect(s.ops.length).toBe(2 * pp * m);
    }
  });
  it('interleaving divides the bubble by v: (p−1)/(v·m)', () => {
    for (const [pp, v, m] of [[4, 2, 8], [8, 3, 64], [16, 8, 16]]) {
      expect(simulateSchedule(pp, v, m).bubble_fraction).toBeCloseTo((pp - 1) / (v * m), 9);
    }
  });
  it('every stage runs each micro-batch forward before backward', () => {
    const s = simulateSchedule(4, 2, 8);
    const at = new Map(s.ops.map((o) => [`${o.kind}${o.stage}.${o.mb}.${o.chunk}`, o]));
    for (const o of s.ops.filter((x) => x.kind === 'B')) expect(at.get(`F${o.stage}.${o.mb}.${o.chunk}`).end).toBeLessThanOrEqual(o.start);
  });
  it('refuses to draw absurd sizes', () => {
    expect(simulateSchedule(64, 8, 100000)).toBeNull();
    expect(simulateSchedule(0, 1, 1)).toBeNull();
  });
  it('merged spans cover the busy time exactly', () => {
    const s = simulateSchedule(4, 1, 8);
    const busy = busySpans(s.ops, 4).flat().reduce((t, x) => t + x.end - x.start, 0);
    expect(busy).toBeCloseTo(4 * 8 * 3, 9);
  });
});

describe('markdown', () => {
  it('one header, one separator and a row per plan; pipes escaped', () => {
    const e = {
      parallel: { tp: 8, pp: 8, vpp: 1, dp: 16, cp: 1, ep: 1, micro_batch: 1, recompute: 'selective', zero: 0 },
      memory_gb: { total: 55.07, capacity: 80 }, pipeline: { bubble_fraction: 7 / 96 }, step_time_s: 16.8, mfu: 0.5,
    };
    const md = plansToMarkdown([e, e], 'a|b').trim().split('\n');
    expect(md[0]).toBe('**a\\|b**');
    expect(md[2]).toMatch(/^\| # \| tp \| pp /);
    expect(md[4]).toBe('| 1 | 8 | 8 | 1 | 16 | 1 | 1 | 1 | selective | 0 | 55.1 GB / 80.0 GB | 7.3% | 16.80 s | 50.0% |');
    expect(md.length).toBe(6);
  });
});
