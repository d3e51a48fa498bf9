// The design report of the selected plan, from the engine's `report` command: its structured
// figures, each linked to the numbered formula that produced it, and the Markdown to copy.
import { ChosenBySearch } from './ChosenBySearch.jsx';
import { CopyButton } from './CopyButton.jsx';
import { Diagnostics } from './Diagnostics.jsx';
import { Explanation } from './Explanation.jsx';
import { fmtReportValue } from '../state/format.js';
import { humanError } from '../state/messages.js';

const anchor = (n) => `formula-${n}`;

/** In-page jump that leaves the URL fragment alone (the fragment holds the page state). */
function jump(event, n) {
  const target = typeof document !== 'undefined' && document.getElementById(anchor(n));
  if (!target) return;
  event.preventDefault();
  if (target.scrollIntoView) target.scrollIntoView({ block: 'center' });
  target.focus({ preventScroll: true });
}

function FormulaRef({ n, formulas }) {
  const f = formulas[n];
  return (
    <a class="ref" href={`#${anchor(n)}`} onClick={(e) => jump(e, n)}
       title={f ? f.name : undefined} aria-label={`formula ${n}${f ? `: ${f.name}` : ''}`}>[{n}]</a>
  );
}

/** The engine's prose: plain text with `code`, **bold** and [[n]](#f-n) formula references. */
function Prose({ text, formulas, Tag = 'p', cls = 'sub' }) {
  const parts = [];
  const pattern = /\[\[(\d+)\]\]\(#f-\d+\)|`([^`]+)`|\*\*([^*]+)\*\*/g;
  let at = 0;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    parts.push(text.slice(at, m.index));
    parts.push(m[1] ? <FormulaRef key={m.index} n={Number(m[1])} formulas={formulas} />
      : m[2] ? <code key={m.index}>{m[2]}</code> : <b key={m.index}>{m[3]}</b>);
    at = pattern.lastIndex;
  }
  parts.push(text.slice(at));
  return <Tag class={cls || undefined}>{parts}</Tag>;
}

export function ReportPanel({ report, explanation, tokenBudget }) {
  if (!report) return <p class="sub" role="status">Writing the report…</p>;
  if (report.error) return <p class="notice" role="alert">The engine cannot write this report: {humanError(report.error).text}</p>;
  const { report: r, markdown, plan } = report.response;
  const formulas = Object.fromEntries(r.formulas.map((f) => [f.number, f]));
  return (
    <section class="report" aria-labelledby="report-h">
      <h2 id="report-h">{r.title}</h2>
      <CopyButton text={markdown} label="Copy report as Markdown" />
      <p class="answer" data-testid="report-summary">{r.summary}</p>
      <ChosenBySearch fields={report.response.chosen_by_search} />
      {!tokenBudget ? (
        <p class="notice" data-testid="report-hint">No token budget given, so the report has no days to train: enter one under
          Training → Token budget (for example 300B or 15T).</p>
      ) : null}
      {r.sections.map((s, i) => (
        <section key={s.id} class="card" aria-labelledby={`report-${s.id}`} data-section={s.id}>
          <h3 id={`report-${s.id}`}>{i + 1}. {s.title}</h3>
          {s.text ? <Prose text={s.text} formulas={formulas} /> : null}
          {s.id === 'layout' ? (
            <>
              <Explanation explanation={explanation} stepsOnly />
              {plan ? <Diagnostics diagnostics={plan.diagnostics} hasPlans /> : null}
            </>
          ) : null}
          {s.figures.length ? (
            <table class="figures">
              <tbody>
                {s.figures.map((f) => (
                  <tr key={f.key} data-key={f.key}>
                    <th scope="row">{f.label}</th>
                    <td class="num">{fmtReportValue(f.value, f.unit)}</td>
                    <td>{f.formula > 0 ? <FormulaRef n={f.formula} formulas={formulas} /> : null}
                      {f.note ? <span class="muted"> {f.note}</span> : null}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
        </section>
      ))}
      <section class="card" aria-labelledby="report-assumptions">
        <h3 id="report-assumptions">Assumptions</h3>
        <ul>{r.assumptions.map((a, i) => <li key={i}><Prose text={a} formulas={formulas} Tag="span" cls="" /></li>)}</ul>
      </section>
      <section class="card" aria-labelledby="report-formulas">
        <h3 id="report-formulas">Formulas</h3>
        <ol class="formulas">
          {r.formulas.map((f) => (
            <li key={f.number} id={anchor(f.number)} value={f.number} tabIndex={-1}>
              <b>{f.name}</b> = <Prose text={f.expression} formulas={formulas} Tag="span" cls="" />. <span class="muted">Source: {f.source}.</span>
            </li>
          ))}
        </ol>
      </section>
    </section>
  );
}
