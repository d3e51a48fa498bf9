// Scaling: the search's best plan at GPU counts around this cluster's (the engine's `scaling`
// sweep, same pins except DP, same global batch): step time, MFU and days to train. A count
// without a plan shows why; an impossible figure is left out.
import { layoutText } from './PlanSummary.jsx';
import { fmtSeconds, fmtShare, groupDigits } from '../state/format.js';
import { reasonText } from '../state/messages.js';

const W = 250;
const H = 150;
const M = { left: 46, right: 8, top: 12, bottom: 30 };

function Panel({ title, points, value, format, current }) {
  const values = points.map(value).filter((v) => v !== null);
  if (!values.length) return null;
  const hi = Math.max(...values) * 1.1;
  const x = (i) => M.left + ((i + 0.5) / points.length) * (W - M.left - M.right);
  const y = (v) => M.top + (1 - v / (hi || 1)) * (H - M.top - M.bottom);
  const line = points.map((p, i) => [i, value(p)]).filter(([, v]) => v !== null)
    .map(([i, v], k) => `${k ? 'L' : 'M'}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join('');
  return (
    <figure class="mini">
      <figcaption>{title}</figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} width="100%" role="img"
           aria-label={`${title} against GPU count: ${points.map((p) => `${p.gpus}: ${value(p) === null ? 'no plan' : format(value(p))}`).join(', ')}`}>
        <line x1={M.left} x2={W - M.right} y1={y(0)} y2={y(0)} class="grid-line" />
        <text x={M.left - 4} y={y(hi / 1.1) + 4} text-anchor="end" class="svg-muted">{format(hi / 1.1)}</text>
        <text x={M.left - 4} y={y(0) + 4} text-anchor="end" class="svg-muted">0</text>
        <path d={line} class="scale-line" />
        {points.map((p, i) => {
          const v = value(p);
          return (
            <g key={p.gpus} class={p.gpus === current ? 'here' : ''}>
              {v === null
                ? <text x={x(i)} y={y(0) - 3} text-anchor="middle" class="svg-muted">×<title>{`${p.gpus} GPUs: ${p.plan ? 'not shown' : reasonText(p.reason)}`}</title></text>
                : <circle cx={x(i)} cy={y(v)} r={p.gpus === current ? 4.5 : 3} class="scale-pt"><title>{`${p.gpus} GPUs: ${format(v)}`}</title></circle>}
              <text x={x(i)} y={H - M.bottom + 14} text-anchor="middle" class="svg-muted">{p.gpus >= 1024 ? `${+(p.gpus / 1024).toFixed(1)}k` : p.gpus}</text>
            </g>
          );
        })}
        <text x={(M.left + W - M.right) / 2} y={H - 4} text-anchor="middle" class="svg-muted">GPUs</text>
      </svg>
    </figure>
  );
}

/** MFU as a fraction when it is possible, else null (hidden). */
const mfuOf = (p) => (p.plan && fmtShare(p.plan.mfu) ? p.plan.mfu : null);

/** `stale`: the sweep is of the previous scenario (the new one is running). */
export function ScalingChart({ scaling, currentGpus, onUseGpus, stale }) {
  if (!scaling) return <section class="card"><h3>Scaling</h3><p class="sub" role="status">Searching other GPU counts…</p></section>;
  if (scaling.error) return <section class="card"><h3>Scaling</h3><p class="sub">The engine could not sweep GPU counts: {scaling.error.message}</p></section>;
  const s = scaling.response.scaling;
  const points = s.points;
  const hasDays = s.token_budget !== null;
  return (
    <section class={`card${stale ? ' stale' : ''}`} aria-labelledby="scaling-h" data-testid="scaling" aria-busy={stale ? 'true' : 'false'}>
      <h3 id="scaling-h">Scaling: the best plan at other GPU counts</h3>
      <p class="sub">The search at each count with the same model, batch and pins (DP follows the count).
        {hasDays ? '' : ' Set a token budget to see days to train.'}</p>
      <div class="minis">
        <Panel title="Step time" points={points} value={(p) => (p.plan ? p.plan.step_time_s : null)} format={fmtSeconds} current={currentGpus} />
        <Panel title="MFU" points={points} value={mfuOf} format={(v) => fmtShare(v, 0)} current={currentGpus} />
        {hasDays ? <Panel title="Days to train" points={points} value={(p) => (p.plan && p.plan.days_to_train !== undefined ? p.plan.days_to_train : null)}
                          format={(v) => v.toFixed(v >= 10 ? 0 : 1)} current={currentGpus} /> : null}
      </div>
      <div class="table-wrap" role="region" aria-label="Scaling table" tabIndex={0}>
        <table class="scaling">
          <caption class="offscreen">Best plan per GPU count</caption>
          <thead><tr><th scope="col">GPUs</th><th scope="col">plan</th><th scope="col">step</th><th scope="col">MFU</th>
            {hasDays ? <th scope="col">days</th> : null}<th scope="col"><span class="offscreen">Use</span></th></tr></thead>
          <tbody>
            {points.map((p) => (
              <tr key={p.gpus} class={p.gpus === currentGpus ? 'selected' : ''}>
                <td>{groupDigits(p.gpus)}</td>
                {p.plan ? (
                  <>
                    <td>{layoutText(p.plan.parallel)}</td><td>{fmtSeconds(p.plan.step_time_s)}</td>
                    <td>{fmtShare(p.plan.mfu) || '–'}</td>
                    {hasDays ? <td>{p.plan.days_to_train !== undefined ? p.plan.days_to_train.toFixed(1) : '–'}</td> : null}
                  </>
                ) : <td colSpan={hasDays ? 4 : 3} class="muted">no plan: {reasonText(p.reason)}</td>}
                <td>{p.plan && p.gpus !== currentGpus ? <button type="button" class="link" onClick={() => onUseGpus(p.gpus)}>Use</button> : null}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
