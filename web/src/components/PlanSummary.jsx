// The answer first: the selected plan's layout, its four key numbers and the engine's 30-second
// answer. A figure the engine got impossible (an MFU over 100%, a bubble over 100% of compute)
// is hidden with the reason instead of shown.
import { fmtCapacity, fmtGb, fmtInt, fmtPct, fmtSeconds, fmtShare } from '../state/format.js';
import { namedSchedule, scheduleName } from '../state/messages.js';

/** The pipeline's chunks and schedule after PP: "(v 2)", or a schedule other than 1F1B and
 * interleaved by name: "(DualPipe)", "(ZB-V, v 2)". */
function pipelineText(p) {
  if (namedSchedule(p)) return ` (${scheduleName(p.schedule)}${p.vpp > 1 ? `, v ${p.vpp}` : ''})`;
  return p.vpp > 1 ? ` (v ${p.vpp})` : '';
}

export function layoutText(p) {
  return `TP ${p.tp} · PP ${p.pp}${pipelineText(p)} · DP ${p.dp}${p.cp > 1 ? ` · CP ${p.cp}` : ''}${p.ep > 1 ? ` · EP ${p.ep}` : ''}`;
}

/** A stable key of a configuration, for tests and the plot: tp8-pp8-v1-dp16-cp1-ep1-mb1-sp1-selective-z0
 * (a schedule other than 1F1B and interleaved appended: …-z1-dualpipe). */
export function planKey(p) {
  return `tp${p.tp}-pp${p.pp}-v${p.vpp}-dp${p.dp}-cp${p.cp}-ep${p.ep}-mb${p.micro_batch}-sp${p.sequence_parallel ? 1 : 0}-${p.recompute}${p.offload_layers > 0 ? `-off${p.offload_layers}` : ''}-z${p.zero}${namedSchedule(p) ? `-${p.schedule}` : ''}`;
}

/** The plan's settings beyond the grid, in words. */
export function settingsText(p) {
  const offloaded = p.offload_layers > 0 ? `${p.offload_layers} layers' activations offloaded to host, ` : '';
  return `micro-batch ${p.micro_batch}, ${p.sequence_parallel ? 'sequence parallel, ' : ''}${p.recompute === 'none' ? 'no' : p.recompute} recompute, ${offloaded}${p.zero > 0 ? `ZeRO-${p.zero}` : 'no ZeRO'}`;
}

/** Whether the engine timed the plan: a grid that is not the cluster gets no step time, MFU or
 * throughput ("timed": false, the figures null), only the reason. */
export const isTimed = (estimate) => estimate.timed !== false && estimate.step_time_s !== null && estimate.step_time_s !== undefined;

/** Why the engine did not time a plan, in its own words (its error diagnostic). */
export function untimedWhy(estimate) {
  const d = (estimate.diagnostics || []).find((x) => x.code === 'plan.gpu_count_mismatch') ||
    (estimate.diagnostics || []).find((x) => x.severity === 'error');
  return `not timed: ${d ? d.message : 'the grid is not the cluster'}`;
}

/** The step time as shown, or hidden with why. */
export function stepFigure(estimate) {
  if (!isTimed(estimate)) return { text: '–', why: untimedWhy(estimate) };
  if (!estimate.fits) return { text: '–', why: 'not meaningful for a plan that cannot run' };
  return { text: fmtSeconds(estimate.step_time_s) };
}

/** The bubble as a share of the step, (p−1)/(v·m + p−1): under 100% by construction. */
export function bubbleFigure(estimate) {
  const b = estimate.pipeline.bubble_fraction;
  if (Number.isFinite(b) && b >= 0 && b < 1) return { text: fmtPct(b) };
  return { text: '–', why: 'the engine gave no bubble share for this plan' };
}

/** MFU as shown, or hidden with why (an invalid plan's or an impossible figure). */
export function mfuFigure(estimate) {
  if (!isTimed(estimate)) return { text: '–', why: untimedWhy(estimate) };
  if (!estimate.fits) return { text: '–', why: 'not meaningful for a plan that cannot run' };
  const text = fmtShare(estimate.mfu);
  return text ? { text } : { text: '–', why: 'the engine computed more than 100% of peak for this plan: a model error, not shown' };
}

export function PlanSummary({ estimate, rank, answer, title }) {
  if (!estimate) return null;
  const p = estimate.parallel;
  const mem = estimate.memory_gb;
  const mfu = mfuFigure(estimate);
  const bubble = bubbleFigure(estimate);
  const step = stepFigure(estimate);
  const timed = isTimed(estimate);
  const items = [
    ['Memory per GPU', `${fmtGb(mem.total)} of ${fmtCapacity(mem.capacity)}`, null],
    ['Step time', step.text, step.why],
    ['MFU', mfu.text, mfu.why],
    ['Bubble (of the step)', bubble.text, bubble.why],
  ];
  // One sentence per reason: an untimed plan's step time and MFU share theirs.
  const hidden = [];
  for (const [k, , why] of items.filter(([, , w]) => w)) {
    const same = hidden.find((h) => h.why === why);
    if (same) same.names.push(k);
    else hidden.push({ names: [k], why });
  }
  return (
    <section class={`summary ${estimate.fits ? 'ok' : 'bad'}`} aria-labelledby="summary-h" data-testid="plan-summary" data-plan={planKey(p)}>
      <p class="verdict" id="summary-h">
        {estimate.fits ? (rank === 0 ? 'Recommended plan' : `Plan #${rank + 1}`) : 'Closest plan (does not fit)'}
        {title ? <span class="muted"> — {title}</span> : null}
      </p>
      <p class="headline" data-testid="plan-layout">{layoutText(p)}</p>
      <p class="sub settings">{settingsText(p)}{timed && estimate.fits && estimate.tokens_per_s ? ` · ${fmtInt(estimate.tokens_per_s)} tokens/s` : ''}
        {timed && estimate.days_to_train ? ` · ${estimate.days_to_train.toFixed(1)} days to train` : ''}</p>
      <dl>
        {items.map(([k, v, why]) => (<div key={k}><dt>{k}</dt><dd title={why || undefined}>{v}</dd></div>))}
      </dl>
      {hidden.length ? (
        <p class="sub" data-testid="hidden-figures">{hidden.map((h) => `${h.names.join(' and ')} not shown: ${h.why.replace(/\.$/, '')}.`).join(' ')}</p>
      ) : null}
      {answer ? (
        <>
          <h2 class="answer-h" id="answer-h">The 30-second answer{rank > 0 ? ` (plan #${rank + 1})` : ''}</h2>
          <blockquote class="answer" data-testid="thirty-second" aria-labelledby="answer-h">{answer}</blockquote>
        </>
      ) : null}
    </section>
  );
}
