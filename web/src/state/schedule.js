// The pipeline schedule for the timeline picture: which micro-batch each stage runs when.
// 1F1B (Narayanan et al. 2021 §2.2.1) and its interleaved form with v model chunks per stage
// (§2.2.2), in Megatron's op order: warm-up forwards, one-forward-one-backward, cool-down.
// Simulated as soon as possible given each rank's op order; a forward of a chunk takes 1/v,
// a backward 2/v. Pure. The bubble it shows is (p−1)/(v·m) of the ideal time (pipeline.h).

const key = (kind, mb, chunk, stage) => `${kind}${mb}.${chunk}.${stage}`;

function rankOrder(stage, p, v, m) {
  const groups = [];
  for (let g0 = 0; g0 < m; g0 += p) groups.push([g0, Math.min(g0 + p, m)]);
  const fwd = [];
  const bwd = [];
  for (const [a, b] of groups) {
    for (let c = 0; c < v; c++) for (let mb = a; mb < b; mb++) fwd.push({ kind: 'F', mb, chunk: c });
    for (let c = v - 1; c >= 0; c--) for (let mb = a; mb < b; mb++) bwd.push({ kind: 'B', mb, chunk: c });
  }
  const warmup = v === 1 ? Math.min(p - stage - 1, m) : Math.min((p - stage - 1) * 2 + (v - 1) * p, m * v);
  const order = fwd.slice(0, warmup);
  let f = warmup;
  let bi = 0;
  while (f < fwd.length) { order.push(fwd[f++]); order.push(bwd[bi++]); }
  while (bi < bwd.length) order.push(bwd[bi++]);
  return order;
}

function dependency(op, stage, p, v) {
  if (op.kind === 'F') {
    if (stage > 0) return key('F', op.mb, op.chunk, stage - 1);
    if (op.chunk > 0) return key('F', op.mb, op.chunk - 1, p - 1);
    return null;
  }
  if (stage < p - 1) return key('B', op.mb, op.chunk, stage + 1);
  if (op.chunk < v - 1) return key('B', op.mb, op.chunk + 1, 0);
  return key('F', op.mb, op.chunk, stage);
}

/**
 * Simulates p stages, v chunks per stage, m micro-batches. Returns {ops: [{stage, kind, mb,
 * chunk, start, end}], makespan_units, ideal_units, bubble_fraction}; times in units of one
 * full-stage forward. Null when the schedule is too large to draw (maxOps).
 */
export function simulateSchedule(p, v, m, maxOps = 300000) {
  if (!(p >= 1 && v >= 1 && m >= 1) || 2 * p * v * m > maxOps) return null;
  const tf = 1 / v;
  const tb = 2 / v;
  const orders = [];
  for (let s = 0; s < p; s++) orders.push(rankOrder(s, p, v, m));
  const done = new Map();
  const clock = new Array(p).fill(0);
  const next = new Array(p).fill(0);
  const ops = [];
  let remaining = orders.reduce((n, o) => n + o.length, 0);
  while (remaining > 0) {
    let progressed = false;
    for (let s = 0; s < p; s++) {
      while (next[s] < orders[s].length) {
        const op = orders[s][next[s]];
        const dep = dependency(op, s, p, v);
        if (dep !== null && !done.has(dep)) break;
        const start = Math.max(clock[s], dep === null ? 0 : done.get(dep));
        const end = start + (op.kind === 'F' ? tf : tb);
        done.set(key(op.kind, op.mb, op.chunk, s), end);
        ops.push({ stage: s, kind: op.kind, mb: op.mb, chunk: op.chunk, start, end });
        clock[s] = end;
        next[s]++;
        remaining--;
        progressed = true;
      }
    }
    if (!progressed) return null; // cannot happen for valid orders; never loop forever
  }
  const makespan = Math.max(...clock);
  const ideal = m * 3;
  return { ops, makespan_units: makespan, ideal_units: ideal, bubble_fraction: (makespan - ideal) / ideal };
}

/** Busy intervals of each stage, merged where they touch (for drawing large schedules). */
export function busySpans(ops, p) {
  const spans = Array.from({ length: p }, () => []);
  const sorted = [...ops].sort((a, b) => a.stage - b.stage || a.start - b.start);
  for (const op of sorted) {
    const list = spans[op.stage];
    const last = list[list.length - 1];
    if (last && op.start - last.end < 1e-9) last.end = op.end;
    else list.push({ start: op.start, end: op.end });
  }
  return spans;
}
