// Why a plan or a search came out infeasible: diagnostics and rejection counts, as data.
export function Diagnostics({ diagnostics, search, hasPlans, title }) {
  const list = diagnostics || [];
  const reasons = search ? Object.entries(search.rejected_by_reason || {}) : [];
  if (hasPlans && !list.length) return null;
  return (
    <section class={`card ${hasPlans ? '' : 'warn'}`}>
      <h3>{title || (hasPlans ? 'Notes on this plan' : 'No configuration fits')}</h3>
      {list.length ? (
        <ul class="diagnostics">
          {list.map((d, i) => (<li key={i} class={d.severity}><code>{d.code}</code> {d.message}</li>))}
        </ul>
      ) : null}
      {!hasPlans && search ? (
        <p class="sub">{search.configs_evaluated.toLocaleString('en-US')} configurations tried
          {reasons.length ? '; rejected: ' : '.'}{reasons.map(([k, n]) => `${k} ×${n}`).join(', ')}
          {search.capped ? ' (search capped)' : ''}</p>
      ) : null}
    </section>
  );
}
