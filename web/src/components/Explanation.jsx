// The engine's explanation: six steps with this scenario's numbers, the 30-second answer,
// and the alternatives it weighed. `stepsOnly`: where the answer is already on screen (the report).

export function Explanation({ explanation, forPlan, stepsOnly }) {
  if (!explanation) return null;
  const Wrap = stepsOnly ? 'div' : 'section';
  return (
    <Wrap class={stepsOnly ? undefined : 'card'} aria-labelledby={stepsOnly ? undefined : 'expl-h'}>
      {stepsOnly ? null : (
        <>
          <h3 id="expl-h">The 30-second answer{forPlan > 0 ? ` (plan #${forPlan + 1})` : ''}</h3>
          <blockquote class="answer" data-testid="thirty-second">{explanation.thirty_second_answer}</blockquote>
        </>
      )}
      <h4>Step by step</h4>
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
