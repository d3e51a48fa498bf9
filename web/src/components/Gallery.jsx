// Worked examples: published figures next to pplan's, each loadable with one click.
import { GALLERY, otherExamples } from '../data/gallery.js';
import { fmtPct } from '../state/format.js';

function layoutText(p) {
  return `t${p.tp} p${p.pp} d${p.dp}${p.cp > 1 ? ` c${p.cp}` : ''}`;
}

function Pplan({ result, metric, published }) {
  if (!result) return <span class="muted">computing…</span>;
  if (result.error) return <span class="muted">{result.error.message}</span>;
  if (!result.plan) return <span class="muted">no plan fits</span>;
  const e = result.plan;
  // tflops_per_gpu counts model FLOPs; for an HFU comparison count recomputation too (hfu/mfu).
  const tflops = metric === 'hfu' && e.mfu > 0 ? e.tflops_per_gpu * (e.hfu / e.mfu) : e.tflops_per_gpu;
  const delta = published ? (e[metric] - published) / published : null;
  return (
    <span>{metric.toUpperCase()} {fmtPct(e[metric], 0)} · {tflops.toFixed(0)} TFLOP/s · {layoutText(e.parallel)}{e.fits ? '' : ' (does not fit)'}
      {delta !== null ? <span class="muted"> ({delta >= 0 ? '+' : '−'}{Math.abs(delta * 100).toFixed(0)}%)</span> : null}</span>
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
        <thead><tr><th scope="col">Run</th><th scope="col">Published</th><th scope="col">pplan (best plan with the published pins)</th><th scope="col"><span class="offscreen">Load</span></th></tr></thead>
        <tbody>
          {entries.map((g) => (
            <tr key={g.file}>
              <th scope="row">{g.title}</th>
              <td>{g.published.metric.toUpperCase()} {fmtPct(g.published.value, 0)} · {g.published.tflops_per_gpu} TFLOP/s · {layoutText(g.published)}</td>
              <td><Pplan result={results[g.file]} metric={g.published.metric} published={g.published.value} /></td>
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
      <p class="sub">In brackets: pplan's figure relative to the published one. HFU counts recomputation FLOPs (Megatron's "percent of peak"); MFU counts model FLOPs only.
        pplan's time model is an estimate: compare rankings as much as values.</p>
    </section>
  );
}
