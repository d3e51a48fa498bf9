// The whole search in one picture: every configuration of the engine's landscape sample (step
// time against memory per GPU), the Pareto front, the recommended plan and the alternatives.
// Every number is the engine's (`landscape` command); this file only places the points.
// Hover a point for its figures; click a ranked one to select it, any other to see it and pin it.
import { useState } from 'preact/hooks';
import { layoutText, planKey, settingsText } from './PlanSummary.jsx';
import { fmtCapacity, fmtGb, fmtSeconds, fmtShare, groupDigits } from '../state/format.js';

const W = 760;
const H = 320;
const M = { left: 62, right: 16, top: 14, bottom: 42 };

/** Nice round ticks over [lo, hi]. */
function ticks(lo, hi, count = 5) {
  const span = hi - lo || 1;
  const step0 = span / count;
  const mag = 10 ** Math.floor(Math.log10(step0));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= step0) || step0;
  const out = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + 1e-9; t += step) out.push(+t.toPrecision(12));
  return out;
}

function describe(point) {
  const p = point.parallel;
  const mfu = fmtShare(point.mfu);
  return `${layoutText(p)}, ${settingsText(p)}: ${fmtGb(point.memory_gb)} per GPU, ${fmtSeconds(point.step_time_s)} per step${mfu ? `, MFU ${mfu}` : ''}`;
}

/** `stale`: the landscape is of the previous scenario (the new one is being sampled). */
export function ScatterPlot({ landscape, selectedRank = 0, onSelect, onPin, pinned, onUnpinAll, stale }) {
  const [hovered, setHovered] = useState(null);
  const [picked, setPicked] = useState(null);
  if (!landscape) return <section class="card"><h3>The whole search</h3><p class="sub" role="status">Sampling the search space…</p></section>;
  if (landscape.error) return <section class="card"><h3>The whole search</h3><p class="sub">The engine could not sample this scenario: {landscape.error.message}</p></section>;
  const l = landscape.response.landscape;
  const points = l.points;
  if (!points.length) return null;
  const capacity = l.capacity_gb;
  const maxMem = Math.max(capacity, ...points.map((p) => p.memory_gb));
  const times = points.map((p) => p.step_time_s);
  const tMin = Math.min(...times);
  const tMax = Math.max(...times);
  // One point, or one step time for all: an axis would repeat one label. Say it in words.
  const sameTime = tMax - tMin <= 1e-3 * tMax;
  if (points.length < 2 || sameTime) {
    return (
      <section class={`card${stale ? ' stale' : ''}`} aria-labelledby="scatter-h" data-testid="scatter" aria-busy={stale ? 'true' : 'false'}>
        <h3 id="scatter-h">The whole search: step time against memory</h3>
        <p class="sub" data-testid="scatter-degenerate">
          {points.length < 2
            ? `Only one configuration is feasible (${describe(points[0])}): there is nothing to plot against it.`
            : `All ${points.length} configurations drawn take ${fmtSeconds(tMin)} per step; they differ only in memory, from ${fmtGb(Math.min(...points.map((p) => p.memory_gb)))} to ${fmtGb(Math.max(...points.map((p) => p.memory_gb)))} per GPU.`}
          {pinned ? <> <button type="button" class="link" onClick={onUnpinAll}>Unpin all to see every layout</button>.</> : null}
        </p>
      </section>
    );
  }
  const logY = tMax / tMin > 4;
  const x = (gb) => M.left + (gb / (maxMem * 1.04)) * (W - M.left - M.right);
  const yLo = logY ? Math.log(tMin / 1.1) : Math.max(0, tMin - (tMax - tMin) * 0.08 - 1e-9);
  const yHi = logY ? Math.log(tMax * 1.1) : tMax + (tMax - tMin) * 0.08 + 1e-9;
  const y = (s) => {
    const v = logY ? Math.log(s) : s;
    return M.top + (1 - (v - yLo) / (yHi - yLo || 1)) * (H - M.top - M.bottom);
  };
  // Ticks whose labels would print alike (a narrow range at the label's precision) are drawn once.
  const yTicks = (logY
    ? [1, 2, 5].flatMap((m) => [-3, -2, -1, 0, 1, 2, 3, 4].map((e) => m * 10 ** e)).filter((t) => t >= tMin / 1.1 && t <= tMax * 1.1).sort((a, b) => a - b)
    : ticks(yLo, yHi)).filter((t, i, all) => i === 0 || fmtSeconds(t) !== fmtSeconds(all[i - 1]));
  const front = points.filter((p) => p.pareto).sort((a, b) => a.step_time_s - b.step_time_s);
  // The front as a staircase: each point is as lean as anything faster.
  const frontPath = front.map((p, i) => `${i ? `H${x(p.memory_gb).toFixed(1)}V` : `M${x(p.memory_gb).toFixed(1)},`}${y(p.step_time_s).toFixed(1)}`).join('');
  const ranked = points.filter((p) => p.rank !== null).sort((a, b) => b.rank - a.rank);
  const shown = hovered || picked;
  const pick = (point) => {
    if (point.rank !== null) {
      setPicked(null);
      onSelect(point.rank);
    } else {
      setPicked(point);
    }
  };
  const key = (point) => (e) => {
    if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); pick(point); }
  };
  return (
    <section class={`card${stale ? ' stale' : ''}`} aria-labelledby="scatter-h" data-testid="scatter" aria-busy={stale ? 'true' : 'false'}>
      <h3 id="scatter-h">The whole search: step time against memory</h3>
      <p class="sub">{groupDigits(l.feasible)} feasible configurations of {groupDigits(l.evaluated)} sampled
        {l.points.length < l.feasible ? ` (${l.points.length} drawn)` : ''}; the line is the Pareto front ({l.pareto_points} configurations
        no other beats on both step time and memory). Rings: the ranked plans, #1 recommended.
        {pinned && l.feasible <= 3 ? <> The pins leave almost nothing to compare: <button type="button" class="link" onClick={onUnpinAll}>unpin all to see every layout</button>.</> : null}</p>
      <div class="scroll-x">
        <svg class="scatter" viewBox={`0 0 ${W} ${H}`} width="100%" role="img"
             aria-label={`Scatter of ${points.length} configurations: step time ${fmtSeconds(tMin)} to ${fmtSeconds(tMax)}, memory up to ${fmtGb(maxMem)} per GPU; the recommended plan uses ${fmtGb((ranked.find((p) => p.rank === 0) || points[0]).memory_gb)}.`}>
          <rect x={M.left} y={M.top} width={W - M.left - M.right} height={H - M.top - M.bottom} class="plot-bg" />
          {yTicks.map((t) => (
            <g key={`y${t}`}>
              <line x1={M.left} x2={W - M.right} y1={y(t)} y2={y(t)} class="grid-line" />
              <text x={M.left - 6} y={y(t) + 4} text-anchor="end" class="svg-muted">{fmtSeconds(t)}</text>
            </g>
          ))}
          {ticks(0, maxMem * 1.04).map((t) => (
            <text key={`x${t}`} x={x(t)} y={H - M.bottom + 16} text-anchor="middle" class="svg-muted">{t}</text>
          ))}
          <text x={(M.left + W - M.right) / 2} y={H - 6} text-anchor="middle" class="svg-muted">memory per GPU (GB = 1e9 bytes)</text>
          <text x={14} y={(M.top + H - M.bottom) / 2} text-anchor="middle" class="svg-muted" transform={`rotate(-90 14 ${(M.top + H - M.bottom) / 2})`}>
            step time{logY ? ' (log)' : ''}</text>
          <line x1={x(capacity)} x2={x(capacity)} y1={M.top} y2={H - M.bottom} class="capacity-line" />
          <text x={x(capacity) - 4} y={M.top + 12} text-anchor="end" class="svg-muted">capacity {fmtCapacity(capacity)}</text>
          {frontPath ? <path d={frontPath} class="front-line" /> : null}
          {points.filter((p) => p.rank === null).map((p, i) => (
            <circle key={i} cx={x(p.memory_gb)} cy={y(p.step_time_s)} r={p.pareto ? 3.6 : 2.6} class={p.pareto ? 'pt front' : 'pt'}
                    onMouseEnter={() => setHovered(p)} onMouseLeave={() => setHovered(null)} onClick={() => pick(p)}>
              <title>{describe(p)}{p.pareto ? ' (Pareto front)' : ''}</title>
            </circle>
          ))}
          {ranked.map((p) => {
            const cx = x(p.memory_gb);
            const cy = y(p.step_time_s);
            const best = p.rank === 0;
            return (
              <g key={`r${p.rank}`} class={`ranked${best ? ' best' : ''}${p.rank === selectedRank ? ' on' : ''}`} role="button" tabIndex={0}
                 aria-label={`Plan #${p.rank + 1}${best ? ' (recommended)' : ''}: ${describe(p)}`}
                 data-testid={best ? 'scatter-recommended' : undefined} data-rank={p.rank} data-plan={planKey(p.parallel)}
                 onMouseEnter={() => setHovered(p)} onMouseLeave={() => setHovered(null)} onClick={() => pick(p)} onKeyDown={key(p)}>
                <circle cx={cx} cy={cy} r={best ? 8 : 5} class="ring" />
                {best ? <text x={cx + 11} y={cy - 6} class="svg-label">#1 recommended</text> : null}
              </g>
            );
          })}
        </svg>
      </div>
      <p class="sub scatter-info" aria-live="polite" data-testid="scatter-info">
        {shown ? `${shown.rank !== null ? `Plan #${shown.rank + 1}: ` : ''}${describe(shown)}${shown.pareto ? ' — on the Pareto front' : ''}.`
          : 'Hover a point for its figures; click one to select it.'}
        {picked && !hovered ? <> <button type="button" class="link" onClick={() => onPin(picked.parallel)}>Pin this layout</button></> : null}
      </p>
    </section>
  );
}
