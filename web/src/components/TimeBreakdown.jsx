// Where a step's time goes: compute, the host's stalls, recompute, exposed communication by kind,
// the bubble, and the wait for the cluster's slowest GPU: every part of the engine's time_s.
import { StackedBar } from './StackedBar.jsx';
import { fmtPct, fmtSeconds } from '../state/format.js';

export const PARTS = [
  ['compute', 'Compute'], ['host', 'Host stall'], ['recompute', 'Recompute'], ['tp_comm', 'TP comm'], ['cp_comm', 'CP comm'],
  ['ep_comm', 'EP all-to-all'], ['pp_comm', 'PP p2p'], ['bubble', 'Bubble'], ['dp_comm', 'DP grad sync'],
  ['offload', 'Activation offload'], ['optimizer', 'Optimizer'], ['straggler', 'Slowest GPU'],
];

export function TimeBreakdown({ estimate }) {
  // An untimed plan (a grid that is not the cluster) has no time_s: nothing to break down.
  if (!estimate || !estimate.time_s || !(estimate.step_time_s > 0)) return null;
  const t = estimate.time_s;
  const total = estimate.step_time_s;
  const parts = PARTS.filter(([k]) => t[k] > 0).map(([k, name]) => ({
    name, value: t[k], text: `${fmtSeconds(t[k])} (${fmtPct(t[k] / total, 0)})`, cls: `t-${k}`,
  }));
  return (
    <section class="card" aria-labelledby="time-h">
      <h3 id="time-h">Step time: {fmtSeconds(total)} · MFU {fmtPct(estimate.mfu)} · {estimate.tflops_per_gpu ? `${estimate.tflops_per_gpu.toFixed(0)} TFLOP/s per GPU` : ''}</h3>
      <StackedBar label="Step time" parts={parts} total={total} />
    </section>
  );
}
