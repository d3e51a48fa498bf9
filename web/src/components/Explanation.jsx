// The engine's explanation: the six steps with this scenario's numbers and the alternatives it
// weighed. (Its 30-second answer opens the page, in PlanSummary.) `stepsOnly`: inside another
// section (the report), without a card of its own.

export function Explanation({ explanation, forPlan, stepsOnly }) {
  if (!explanation) return null;
  const Wrap = stepsOnly ? 'div' : 'section';
  return (
    <Wrap class={stepsOnly ? undefined : 'card'} aria-labelledby={stepsOnly ? undefined : 'expl-h'}>
      {stepsOnly ? <h4>Step by step</h4>
        : <h3 id="expl-h">Why this plan, step by step{forPlan > 0 ? ` (plan #${forPlan + 1})` : ''}</h3>}
      <ol class="steps explained">
        {explanation.steps.map((s) => (<li key={s.step}><b>{s.title}.</b> {s.text}</li>))}
      </ol>
      {explanation.alternatives && explanation.alternatives.length ? (
        <>
          <h4>Alternatives</h4>
          <ul class="alternatives">
            {explanation.alternatives.map((a, i) => (
              <li key={i}><b>{a.label}</b>: {a.verdict}</li>
            ))}
          </ul>
        </>
      ) : null}
    </Wrap>
  );
}
