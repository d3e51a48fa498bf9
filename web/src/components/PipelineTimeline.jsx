// The pipeline schedule as a timeline: stages as rows, forward and backward passes of each
// micro-batch as boxes, idle time (the bubble) left blank. 1F1B or interleaved (v chunks).
// Up to 600 passes: one box each (hover for its micro-batch); up to 20,000: forward and backward
// each drawn as one path, still told apart; beyond: the start of the step, zoomed.
import { simulateSchedule } from '../state/schedule.js';
import { fmtPct } from '../state/format.js';

const WIDTH = 760;
const LEFT = 58;
const BOXES = 600;
const PATH_OPS = 20000;

/** Forward and backward passes as two path strings (one rectangle per pass, no DOM per box). */
function passPaths(ops, scale, rowH) {
  const d = { F: [], B: [] };
  for (const op of ops) {
    const w = Math.max(0.5, (op.end - op.start) * scale - 0.3);
    d[op.kind].push(`M${(LEFT + op.start * scale).toFixed(1)} ${op.stage * rowH}h${w.toFixed(2)}v${rowH - 1}h${(-w).toFixed(2)}z`);
  }
  return { fwd: d.F.join(''), bwd: d.B.join('') };
}

export function PipelineTimeline({ parallel, pipeline }) {
  if (!parallel || !pipeline) return null;
  const p = parallel.pp;
  const v = parallel.vpp || 1;
  const m = Math.round(pipeline.microbatches);
  const kind = v > 1 ? `interleaved 1F1B, v = ${v}` : '1F1B';
  if (p <= 1) {
    return (
      <section class="card" aria-labelledby="pipe-h">
        <h3 id="pipe-h">Pipeline schedule</h3>
        <p class="sub">No pipeline parallelism (p = 1): every GPU runs all layers; no bubble.</p>
      </section>
    );
  }
  const sim = simulateSchedule(p, v, m);
  const rowH = Math.max(5, Math.min(20, Math.floor(300 / p)));
  const height = p * rowH + 24;
  let body = null;
  let zoom = null;
  if (sim) {
    let ops = sim.ops;
    let span = sim.makespan_units;
    if (ops.length > PATH_OPS) {
      // Too many passes to draw: the first PATH_OPS in time order, which show the warm-up and
      // the steady one-forward-one-backward phase.
      const sorted = [...ops].sort((a, b) => a.start - b.start);
      span = sorted[PATH_OPS].start;
      ops = sorted.filter((op) => op.start < span);
      zoom = span / sim.makespan_units;
    }
    const scale = (WIDTH - LEFT - 4) / span;
    const detailed = ops.length <= BOXES;
    const paths = detailed ? null : passPaths(ops, scale, rowH);
    body = (
      <svg class="timeline" viewBox={`0 0 ${WIDTH} ${height}`} width="100%" role="img"
           aria-label={`Pipeline timeline: ${p} stages, ${m} micro-batches, ${kind}; idle share ${fmtPct(sim.bubble_fraction)}`}>
        {Array.from({ length: p }, (_, s) => (
          <g key={s}>
            <rect x={LEFT} y={s * rowH} width={WIDTH - LEFT - 4} height={rowH - 1} class="idle" />
            {(p <= 16 || s % Math.ceil(p / 16) === 0) ? <text x={LEFT - 6} y={s * rowH + rowH - 3} text-anchor="end" class="svg-muted">stage {s}</text> : null}
          </g>
        ))}
        {detailed
          ? ops.map((op, i) => (
            <rect key={i} x={LEFT + op.start * scale} y={op.stage * rowH} width={Math.max(0.5, (op.end - op.start) * scale - 0.4)}
                  height={rowH - 1} class={`op ${op.kind === 'F' ? 'fwd' : 'bwd'} c${op.chunk % 4}`}>
              <title>{`stage ${op.stage}: ${op.kind === 'F' ? 'forward' : 'backward'} micro-batch ${op.mb}${v > 1 ? `, chunk ${op.chunk}` : ''}`}</title>
            </rect>))
          : (
            <>
              <path d={paths.fwd} class="op fwd" data-testid="timeline-fwd" />
              <path d={paths.bwd} class="op bwd" data-testid="timeline-bwd" />
            </>)}
        <text x={LEFT} y={height - 6} class="svg-muted">time →</text>
      </svg>
    );
  }
  return (
    <section class="card" aria-labelledby="pipe-h">
      <h3 id="pipe-h">Pipeline schedule: {kind}, p = {p}, m = {m}</h3>
      <p class="sub">Bubble (p−1)/{v > 1 ? '(v·m)' : 'm'} = {fmtPct(pipeline.bubble_ratio)} of the ideal time, {fmtPct(pipeline.bubble_fraction)} of the step: the blank area at the start and end.
        {` Light: forward; dark: backward (2× forward)${v > 1 && sim && sim.ops.length <= BOXES ? '; colour: model chunk' : ''}.`}
        {sim && sim.ops.length <= BOXES ? ' Hover a box for its micro-batch.' : ''}
        {zoom ? ` Too many passes to draw: the first ${fmtPct(zoom, 0)} of the step is shown.` : ''}</p>
      {body || <p class="sub">Too many micro-batches to draw ({m}).</p>}
      {sim ? <p class="sub">Simulated idle share: {fmtPct(sim.bubble_fraction)} of the ideal time.</p> : null}
    </section>
  );
}
