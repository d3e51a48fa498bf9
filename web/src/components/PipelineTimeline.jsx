// The pipeline schedule as a timeline: stages as rows, forward and backward passes of each
// micro-batch as boxes, idle time (the bubble) left blank. 1F1B or interleaved (v chunks); the
// other schedules (zero bubble, DualPipe) are priced by formula and not drawn: the engine says so.
// What to draw is the engine's answer (`schedule`, core/include/pplan/model/pipeline_schedule.h):
// this file only renders it. Up to 600 passes: one box each (hover for its micro-batch); more:
// forward and backward each drawn as one path, still told apart; the engine sends at most its
// cap, the start of the step, and says so.
import { fmtPct, groupDigits } from '../state/format.js';
import { namedSchedule, scheduleName } from '../state/messages.js';

const WIDTH = 760;
const LEFT = 58;
export const BOXES = 600;

/** Forward and backward passes as two path strings (one rectangle per pass, no DOM per box). */
function passPaths(ops, scale, rowH) {
  const d = { F: [], B: [] };
  for (const op of ops) {
    const w = Math.max(0.5, (op.end - op.start) * scale - 0.3);
    d[op.kind === 'F' ? 'F' : 'B'].push(`M${(LEFT + op.start * scale).toFixed(1)} ${op.stage * rowH}h${w.toFixed(2)}v${rowH - 1}h${(-w).toFixed(2)}z`);
  }
  return { fwd: d.F.join(''), bwd: d.B.join('') };
}

/** The engine's passes (columns: stage[], kind 'FFB…', microbatch[], chunk[], start_ticks[],
 * end_ticks[]; a tick is units_per_tick forwards) as one object per pass, times in forwards. */
export function passesOf(schedule) {
  const c = schedule && schedule.ops;
  if (!c || !Array.isArray(c.stage)) return [];
  const tick = schedule.units_per_tick;
  const out = new Array(c.stage.length);
  for (let i = 0; i < c.stage.length; i++) {
    out[i] = { stage: c.stage[i], kind: c.kind[i], microbatch: c.microbatch[i], chunk: c.chunk[i],
      start: c.start_ticks[i] * tick, end: c.end_ticks[i] * tick };
  }
  return out;
}

function Card({ title, children }) {
  return (
    <section class="card" aria-labelledby="pipe-h">
      <h3 id="pipe-h">{title}</h3>
      {children}
    </section>
  );
}

/** `schedule`: {response} from the engine's schedule command, {error}, or null while it computes. */
export function PipelineTimeline({ parallel, pipeline, schedule }) {
  if (!parallel || !pipeline) return null;
  const p = parallel.pp;
  const v = parallel.vpp || 1;
  const m = pipeline.microbatches;
  // The plan's schedule (parallel.schedule); a plan from before the field is 1F1B or interleaved by vpp.
  const named = namedSchedule(parallel);
  const kind = named ? `${scheduleName(parallel.schedule)}${v > 1 ? `, v = ${v}` : ''}` : v > 1 ? `interleaved 1F1B, v = ${v}` : '1F1B';
  if (p <= 1) {
    return (
      <Card title="Pipeline schedule">
        <p class="sub">No pipeline parallelism (p = 1): every GPU runs all layers; no bubble.</p>
      </Card>
    );
  }
  const title = `Pipeline schedule: ${kind}, p = ${p}, m = ${groupDigits(Number(m))}`;
  const bubbleLine = named ? (
    <p class="sub" data-testid="bubble-line">Bubble: {fmtPct(pipeline.bubble_ratio)} of the ideal compute time,
      {' '}{fmtPct(pipeline.bubble_fraction)} of the step, by the {scheduleName(parallel.schedule)} schedule's bubble formula.</p>
  ) : (
    <p class="sub" data-testid="bubble-line">Bubble: {fmtPct(pipeline.bubble_ratio)} of the ideal compute time ((p−1)/{v > 1 ? '(v·m)' : 'm'}),
      {' '}{fmtPct(pipeline.bubble_fraction)} of the step ((p−1)/({v > 1 ? 'v·' : ''}m + p − 1)): the blank area at the start and end.</p>
  );
  const answer = schedule && schedule.response ? schedule.response.schedule : null;
  // An answer for another plan (the selection moved on) is not drawn.
  const current = answer && answer.pp === p && answer.vpp === v && answer.microbatches === m &&
    (!answer.schedule || !parallel.schedule || answer.schedule === parallel.schedule) ? answer : null;
  if (!current) {
    return (
      <Card title={title}>
        {bubbleLine}
        {schedule && schedule.error
          ? <p class="sub" role="status">No timeline: {String(schedule.error.message || schedule.error)}</p>
          : <p class="sub" role="status">Drawing the schedule…</p>}
      </Card>
    );
  }
  if (!current.drawn) {
    return (
      <Card title={title}>
        {bubbleLine}
        <p class="sub" data-testid="timeline-not-drawn">No timeline: {String(current.reason || 'the engine draws only 1F1B and interleaved 1F1B').replace(/\.$/, '')}.</p>
      </Card>
    );
  }
  const ops = passesOf(current);
  const span = current.complete ? current.makespan_units : current.shown_until_units;
  const rowH = Math.max(5, Math.min(20, Math.floor(300 / p)));
  const height = p * rowH + 24;
  const scale = (WIDTH - LEFT - 4) / span;
  const detailed = ops.length <= BOXES;
  const paths = detailed ? null : passPaths(ops, scale, rowH);
  return (
    <Card title={title}>
      {bubbleLine}
      <p class="sub">Light: forward; dark: backward (2× forward){v > 1 && detailed ? '; colour: model chunk' : ''}.
        {detailed ? ' Hover a box for its micro-batch.' : ''}
        {!current.complete ? ` Too many passes to draw (${groupDigits(current.total_passes)}): the first ${fmtPct(span / current.makespan_units, 0)} of the step is shown.` : ''}</p>
      <svg class="timeline" viewBox={`0 0 ${WIDTH} ${height}`} width="100%" role="img" data-testid="timeline"
           aria-label={`Pipeline timeline: ${p} stages, ${m} micro-batches, ${kind}; idle ${fmtPct(current.idle_share)} of the step`}>
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
              <title>{`stage ${op.stage}: ${op.kind === 'F' ? 'forward' : 'backward'} micro-batch ${op.microbatch}${v > 1 ? `, chunk ${op.chunk}` : ''}`}</title>
            </rect>))
          : (
            <>
              <path d={paths.fwd} class="op fwd" data-testid="timeline-fwd" />
              <path d={paths.bwd} class="op bwd" data-testid="timeline-bwd" />
            </>)}
        <text x={LEFT} y={height - 6} class="svg-muted">time →</text>
      </svg>
      <p class="sub" data-testid="timeline-idle">The engine's simulated schedule idles {fmtPct(current.idle_share)} of the step
        ({fmtPct(current.bubble_over_ideal)} of the ideal time).</p>
    </Card>
  );
}
