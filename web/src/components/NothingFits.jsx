// When no configuration fits: why, in words, and one-click ways out (the nearest GPU counts the
// engine found, the pins that block, or a free search). Codes only in a details line.
import { layoutText } from './PlanSummary.jsx';
import { FIELD_LABELS, pinsToRelease, plural, reasonText } from '../state/messages.js';
import { UNPINNED, isPinned } from '../state/scenario.js';
import { groupDigits } from '../state/format.js';

export function NothingFits({ response, state, onFix }) {
  const search = response.search || { rejected_by_reason: {}, configs_evaluated: 0 };
  const reasons = Object.entries(search.rejected_by_reason || {}).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const closest = response.nearest_infeasible && response.nearest_infeasible[0];
  const closestCodes = closest ? closest.diagnostics.filter((d) => d.severity === 'error').map((d) => d.code) : [];
  const release = pinsToRelease([...closestCodes, ...reasons.map(([code]) => code)], state);
  const nearest = response.nearest_gpus || {};
  const pinned = isPinned(state);
  const gpuFix = (side) => nearest[side] ? (
    <button type="button" class="primary" data-testid={`use-gpus-${side}`} onClick={() => onFix({ gpus: String(nearest[side].gpus) })}>
      Use {groupDigits(nearest[side].gpus)} GPUs <span class="btn-sub">({layoutText(nearest[side].plan.parallel)})</span>
    </button>) : null;
  return (
    <section class="card warn" aria-labelledby="nofit-h" data-testid="nothing-fits">
      <h3 id="nofit-h">No configuration fits</h3>
      <p>{closest && closestCodes.length
        ? `The closest configuration fails because ${closestCodes.map(reasonText).join(', and ')}.`
        : 'Every configuration the search tried fails.'}
        {reasons.length && search.configs_evaluated > 1 ? ` Of ${plural(search.configs_evaluated, 'configuration')} tried, ${reasons.slice(0, 3).map(([code, n]) => `${groupDigits(n)} ${n === 1 ? 'fails' : 'fail'} because ${reasonText(code)}`).join('; ')}.` : ''}</p>
      <div class="fixes" role="group" aria-label="Ways to a plan">
        {gpuFix('below')}{gpuFix('above')}
        {release.map((field) => (
          <button type="button" key={field} onClick={() => onFix({ [field]: '' })}>Unpin {FIELD_LABELS[field]}</button>))}
        {pinned ? <button type="button" onClick={() => onFix(UNPINNED)}>Search every layout instead</button> : null}
      </div>
      {!nearest.below && !nearest.above && response.nearest_gpus ? (
        <p class="sub">No GPU count within {nearest.max_searches} tries of {groupDigits(Number(state.gpus || 0))} admits a plan with these settings.</p>
      ) : null}
      <details class="code-details">
        <summary>Details</summary>
        <p class="sub">{plural(search.configs_evaluated, 'configuration')} tried; rejected: {reasons.map(([k, n]) => `${k} ×${n}`).join(', ') || 'none'}{search.capped ? ' (search capped)' : ''}.</p>
      </details>
    </section>
  );
}
