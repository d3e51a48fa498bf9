// The headline numbers of the selected plan.
import { fmtGb, fmtInt, fmtPct, fmtSeconds } from '../state/format.js';

export function PlanSummary({ estimate, rank }) {
  if (!estimate) return null;
  const p = estimate.parallel;
  const mem = estimate.memory_gb;
  const items = [
    ['Layout', `TP ${p.tp} · PP ${p.pp}${p.vpp > 1 ? ` (v ${p.vpp})` : ''} · DP ${p.dp}${p.cp > 1 ? ` · CP ${p.cp}` : ''}${p.ep > 1 ? ` · EP ${p.ep}` : ''}`],
    ['Memory per GPU', `${fmtGb(mem.total)} of ${fmtGb(mem.capacity, 0)}`],
    ['Bubble', fmtPct(estimate.pipeline.bubble_fraction)],
    ['Step time', fmtSeconds(estimate.step_time_s)],
    ['MFU', fmtPct(estimate.mfu)],
    ['Tokens/s', fmtInt(estimate.tokens_per_s)],
  ];
  return (
    <section class={`summary ${estimate.fits ? 'ok' : 'bad'}`} aria-label="Selected plan">
      <p class="verdict">{estimate.fits ? `Plan #${rank + 1} fits` : `Plan #${rank + 1} does not fit`}</p>
      <dl>
        {items.map(([k, v]) => (<div key={k}><dt>{k}</dt><dd>{v}</dd></div>))}
      </dl>
    </section>
  );
}
