// Worked examples: published figures next to pplan's, each loadable with one click.
import { GALLERY, changesFrom, otherExamples } from '../data/gallery.js';
import { fmtPct } from '../state/format.js';

function layoutText(p) {
  return `t${p.tp} p${p.pp} d${p.dp}${p.cp > 1 ? ` c${p.cp}` : ''}`;
}

/** A figure as docs/accuracy.md prints it (tests/validation/readme.cpp figure_text). */
const figureText = (metric, value) => `${metric.toUpperCase()} ${fmtPct(value, 1)}`;

/** The primary figure of an engine plan (hfu or mfu; both count the step's FLOPs per GPU). */
function AsRun({ result, metric, published }) {
  if (!result) return <span class="muted">computing…</span>;
  if (result.error) return <span class="muted">{result.error.message}</span>;
  if (!result.plan) return <span class="muted">no plan fits</span>;
  const e = result.plan;
  const error = (e[metric] - published) / published;
  return (
    <span data-testid="as-run">{figureText(metric, e[metric])}{e.fits ? '' : ' (does not fit)'}
      <span class="muted"> ({error >= 0 ? '+' : '-'}{fmtPct(Math.abs(error), 1)})</span></span>
  );
}

/** pplan's best plan with only the published layout pinned, and what it changes. */
function Best({ result, metric }) {
  if (!result || !result.best) return <span class="muted">computing…</span>;
  const best = result.best;
  if (best.error) return <span class="muted">{best.error.message}</span>;
  if (!best.plan || !result.plan) return <span class="muted">no plan fits</span>;
  const changes = changesFrom(result.plan, best.plan, result.doc, result.bestDoc);
  const gain = best.plan.step_time_s > 0 ? result.plan.step_time_s / best.plan.step_time_s - 1 : 0;
  // The search keeps training.memory_headroom free; a published plan pinned past it is priced,
  // but the search's own choice may then be slower.
  const pastHeadroom = (result.plan.diagnostics || []).some((d) => d.code === 'plan.low_headroom');
  const speed = gain > 0.0005 ? ` · ${(gain * 100).toFixed(0)}% faster`
    : gain < -0.0005 ? ` · ${(-gain / (1 + gain) * 100).toFixed(0)}% slower${pastHeadroom ? ': the published plan uses more memory than the headroom pplan keeps free' : ''}` : '';
  return (
    <span data-testid="best">{figureText(metric, best.plan[metric])}
      {changes.length ? <span class="muted"> · {changes.join(', ')}{speed}</span>
        : <span class="muted"> · the same plan</span>}</span>
  );
}

export function Gallery({ results, onLoad }) {
  const walkthrough = GALLERY.filter((g) => g.group === 'walkthrough');
  const llama = GALLERY.filter((g) => g.group === 'llama');
  const megatron = GALLERY.filter((g) => g.group === 'megatron');
  const table = (entries, caption, source) => (
    <div class="table-wrap" role="region" aria-label={caption} tabIndex={0}>
      <table class="gallery">
        <caption>{caption} <span class="muted">— {source}</span></caption>
        <thead><tr><th scope="col">Run</th><th scope="col">Published</th><th scope="col">pplan, run as it was run</th><th scope="col">pplan's best with these pins</th><th scope="col"><span class="offscreen">Load</span></th></tr></thead>
        <tbody>
          {entries.map((g) => (
            <tr key={g.file} data-case={g.case}>
              <th scope="row">{g.title}</th>
              <td>{g.published.metric.toUpperCase()} {fmtPct(g.published.value, 0)} · {g.published.tflops_per_gpu} TFLOP/s · {layoutText(g.published)}</td>
              <td><AsRun result={results[g.file]} metric={g.published.metric} published={g.published.value} /></td>
              <td><Best result={results[g.file]} metric={g.published.metric} /></td>
              <td><button type="button" onClick={() => onLoad(g.file)} aria-label={`Load ${g.title}`}>Load</button></td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
  return (
    <section aria-labelledby="gallery-h">
      <h2 id="gallery-h">Worked examples</h2>
      {walkthrough.map((g) => (
        <article key={g.file} class="card example">
          <h3>{g.title}</h3>
          <ul>{g.worked.map((w) => <li key={w}>{w}</li>)}</ul>
          <p class="sub">{g.source}</p>
          <button type="button" class="primary" onClick={() => onLoad(g.file)} aria-label={`Load ${g.title}`}>Load the walkthrough</button>
        </article>
      ))}
      {table(llama, 'Llama 3 405B', llama[0].source)}
      {table(megatron, 'Megatron-LM 2021, Table 1 (weak scaling)', megatron[0].source)}
      <h3>More scenarios</h3>
      <ul class="more-examples">
        {otherExamples().map((e) => (
          <li key={e.file}>
            <button type="button" onClick={() => onLoad(e.file)} aria-label={`Load ${e.name}`}>Load</button>{' '}
            <b>{e.name}</b> <code class="muted">examples/{e.file}</code>
            {e.description ? <p class="sub">{e.description}</p> : null}
          </li>
        ))}
      </ul>
      <p class="sub">"Run as it was run" prices the published layout with the source's own settings (framework, recomputation, optimizer sharding): the
        scenario of docs/accuracy.md, the same figure. "Best with these pins" keeps only the published TP, PP, DP and CP and lets pplan choose the rest on
        today's stack. In brackets: pplan's figure relative to the published one. HFU counts recomputation FLOPs (Megatron's "percent of peak"); MFU counts model FLOPs only.
        pplan's time model is an estimate: compare rankings as much as values.</p>
    </section>
  );
}
