// @vitest-environment node
// The pictures' models: reading the engine's layout view, against hand-derived values (the
// pipeline schedule is the engine's: tests/core/pipeline_schedule_test.cpp, timeline.test.jsx).
import { describe, expect, it } from 'vitest';
import { linkText, rowCaption, stageChangesAfter, tpRuns } from '../src/state/layout.js';
import { plansToMarkdown } from '../src/state/markdown.js';

describe('reading the engine\'s layout view (no rank formula in the page)', () => {
  // Hand-made rows in the engine's layout_view shape (core/include/pplan/launch/layout.h).
  const gpu = (rank, tp, dp, pp, cp = 0) => ({ rank, tp, cp, dp, pp });
  it('outlines replica 0\'s TP groups: a new group at each tp 0, other replicas skipped', () => {
    // tp 2, dp 2, pp 2 on one 8-GPU node: ranks 0-1 (d0 s0), 2-3 (d1), 4-5 (d0 s1), 6-7 (d1).
    const gpus = [gpu(0, 0, 0, 0), gpu(1, 1, 0, 0), gpu(2, 0, 1, 0), gpu(3, 1, 1, 0),
      gpu(4, 0, 0, 1), gpu(5, 1, 0, 1), gpu(6, 0, 1, 1), gpu(7, 1, 1, 1)];
    expect(tpRuns(gpus)).toEqual([{ start: 0, end: 1, cp: 0, pp: 0 }, { start: 4, end: 5, cp: 0, pp: 1 }]);
    expect(tpRuns(gpus, 5)).toEqual([{ start: 0, end: 1, cp: 0, pp: 0 }, { start: 4, end: 4, cp: 0, pp: 1 }]);
    // Two TP groups side by side (tp 2, cp 2): split at tp 0 even with the same stage.
    expect(tpRuns([gpu(0, 0, 0, 0, 0), gpu(1, 1, 0, 0, 0), gpu(2, 0, 0, 0, 1), gpu(3, 1, 0, 0, 1)]).length).toBe(2);
    expect(tpRuns([gpu(0, 0, 0, 0), null])).toEqual([{ start: 0, end: 0, cp: 0, pp: 0 }]);
  });
  it('captions, link names and PP hops', () => {
    expect(rowCaption({ stages: [0, 1, 2, 3], cp_ranks: [0, 1] }, 2)).toBe('stage 0–3 · cp 0, 1');
    expect(rowCaption({ stages: [5], cp_ranks: [0] }, 1)).toBe('stage 5');
    expect(rowCaption({ stages: [], cp_ranks: [] }, 1)).toBe('');
    expect(linkText({ link: 'nvlink' })).toBe('NVLink');
    expect(linkText({ link: 'network' })).toBe('network');
    expect(linkText({ link: 'none' })).toBe('—');
    const rows = [{ node: 0, stages: [0] }, { node: 16, stages: [0] }, { node: 32, stages: [1] }, { collapsed_nodes: 3 }, { node: 99, stages: [7] }];
    expect(rows.map((_, i) => stageChangesAfter(rows, i))).toEqual([false, true, false, false, false]);
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
    expect(md[4]).toBe('| 1 | 8 | 8 | 1 | 16 | 1 | 1 | 1 | off | selective | 0 | 55.1 GB of 80.0 GB | 7.3% | 16.80 s | 50.0% |');
    // a capacity of 80 GiB reads as the memory bar says it
    const gib = plansToMarkdown([{ ...e, memory_gb: { total: 55.07, capacity: 85.8993 } }]).trim().split('\n');
    expect(gib[2]).toContain('| 55.1 GB of 80 GiB (85.9 GB) |');
    expect(md.length).toBe(6);
    // Expert TP shows beside EP only where it differs from TP (parallel folding).
    const folded = { ...e, parallel: { ...e.parallel, tp: 2, ep: 64, etp: 1 } };
    expect(plansToMarkdown([folded]).trim().split('\n')[2]).toContain('| 64 · etp 1 |');
    const same = { ...e, parallel: { ...e.parallel, tp: 2, ep: 64, etp: 2 } };
    expect(plansToMarkdown([same]).trim().split('\n')[2]).toContain('| 1 | 64 | 1 |');
  });
});
