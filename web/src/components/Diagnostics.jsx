// Why a plan or a search came out infeasible, or what to watch: the engine's messages in words;
// the codes only in a details line.
import { plural, reasonText } from '../state/messages.js';
import { groupDigits } from '../state/format.js';

export function Diagnostics({ diagnostics, search, hasPlans, title }) {
  const list = diagnostics || [];
  const reasons = search ? Object.entries(search.rejected_by_reason || {}) : [];
  if (hasPlans && !list.length) return null;
  return (
    <section class={`card ${hasPlans ? '' : 'warn'}`}>
      <h3>{title || (hasPlans ? 'Notes on this plan' : 'No configuration fits')}</h3>
      {list.length ? (
        <ul class="diagnostics">
          {list.map((d, i) => (<li key={i} class={d.severity}>{d.message}</li>))}
        </ul>
      ) : null}
      {!hasPlans && search ? (
        <p class="sub">{plural(search.configs_evaluated, 'configuration')} tried
          {reasons.length ? '; rejected because ' : '.'}{reasons.map(([k, n]) => `${reasonText(k)} (${groupDigits(n)})`).join(', ')}
          {search.capped ? ' (search capped)' : ''}</p>
      ) : null}
      {list.length || reasons.length ? (
        <details class="code-details">
          <summary>Details</summary>
          <code>{[...list.map((d) => `${d.code} (${d.severity})`), ...reasons.map(([k, n]) => `${k} ×${n}`)].join(', ')}</code>
        </details>
      ) : null}
    </section>
  );
}
