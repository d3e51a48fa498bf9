// The engine's explanation: six steps with this scenario's numbers, the 30-second answer,
// and the alternatives it weighed.

export function Explanation({ explanation, forPlan }) {
  if (!explanation) return null;
  return (
    <section class="card" aria-labelledby="expl-h">
      <h3 id="expl-h">The 30-second answer{forPlan > 0 ? ` (plan #${forPlan + 1})` : ''}</h3>
      <blockquote class="answer" data-testid="thirty-second">{explanation.thirty_second_answer}</blockquote>
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
    </section>
  );
}
