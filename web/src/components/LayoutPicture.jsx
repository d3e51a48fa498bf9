// The layout picture (method.md "Picture"): nodes as rows of GPUs; one DP replica drawn in
// full, coloured by pipeline stage, TP groups outlined; identical replicas collapsed to a count.
import { layoutModel } from '../state/layout.js';

const CELL = 26;
const GAP = 4;
const LEFT = 118;
const MAX_CELLS = 16;

const stageColor = (s, pp) => `hsl(${Math.round((s * 300) / Math.max(1, pp))}, 62%, ${pp > 1 ? 52 : 48}%)`;

const span = (xs) => (xs.length > 2 ? `${xs[0]}–${xs[xs.length - 1]}` : xs.join(', '));

/** "stage 0" or "stage 0 · cp 0–3" for the replica-0 ranks on a node. */
function rowCaption(row, cp) {
  if (!row.stages.length) return '';
  return `stage ${span(row.stages)}${cp > 1 ? ` · cp ${span(row.cpRanks)}` : ''}`;
}

function linkText(kind) {
  return kind === 'network' ? 'network' : kind === 'NVLink' ? 'NVLink' : '—';
}

export function LayoutPicture({ parallel, gpus, gpusPerNode }) {
  if (!parallel || !(gpus > 0) || !(gpusPerNode > 0)) return null;
  const model = layoutModel(parallel, gpus, gpusPerNode);
  const cells = Math.min(gpusPerNode, MAX_CELLS);
  const width = LEFT + cells * (CELL + 2) + 70;
  const rowH = CELL + 18;
  const height = model.rows.length * rowH + 8;
  const { links } = model;
  const summary = `${gpus.toLocaleString('en-US')} GPUs = ${model.nodes.toLocaleString('en-US')} nodes × ${gpusPerNode}. ` +
    `One replica = ${model.gpusPerReplica} GPUs on ${model.replicaNodes} node${model.replicaNodes > 1 ? 's' : ''}; ` +
    `${model.replicas} identical replica${model.replicas > 1 ? 's' : ''} (DP).`;
  return (
    <section class="card" aria-labelledby="layout-h">
      <h3 id="layout-h">Layout on the cluster</h3>
      <p class="sub">{summary}</p>
      <ul class="links">
        <li><b>TP {parallel.tp}</b> {parallel.tp > 1 ? `over ${linkText(links.tp)}` : '(none)'}{links.tp === 'network' ? ' — crosses nodes!' : ''}</li>
        {parallel.cp > 1 ? <li><b>CP {parallel.cp}</b> over {linkText(links.cp)}</li> : null}
        <li><b>PP {parallel.pp}</b> {parallel.pp > 1 ? `stage to stage over ${linkText(links.pp)}` : '(none)'}</li>
        <li><b>DP {parallel.dp}</b> {parallel.dp > 1 ? `gradient all-reduce over ${linkText(links.dp)}, once per step` : '(none)'}</li>
        {parallel.ep > 1 ? <li><b>EP {parallel.ep}</b> all-to-all over {linkText(links.ep)}</li> : null}
      </ul>
      <div class="scroll-x">
        <svg class="layout" viewBox={`0 0 ${width} ${height}`} width={width} height={height} role="img"
             aria-label={`Replica 0 of ${model.replicas}: ${model.replicaNodes} nodes shown as rows of GPUs, coloured by pipeline stage`}>
          {model.rows.map((row, i) => {
            const y = 4 + i * rowH;
            if (row.gap) {
              return (
                <text key={`gap${i}`} x={LEFT + (cells * (CELL + 2)) / 2} y={y + CELL / 2 + 6} class="svg-muted" text-anchor="middle">
                  ⋮ {row.gap} more nodes of this replica ⋮
                </text>
              );
            }
            const shown = row.cells.slice(0, cells);
            // TP groups of replica 0 inside this row: runs of cells with the same (c, d, s).
            const groups = [];
            shown.forEach((c, j) => {
              if (!c || c.d !== 0) return;
              const last = groups[groups.length - 1];
              if (last && last.end === j - 1 && last.c === c.c && last.s === c.s && c.t !== 0) last.end = j;
              else groups.push({ start: j, end: j, c: c.c, s: c.s });
            });
            return (
              <g key={row.node}>
                <text x={0} y={y + 12} class="svg-label">node {row.node}</text>
                <text x={0} y={y + 26} class="svg-muted">{rowCaption(row, parallel.cp)}</text>
                {shown.map((c, j) => {
                  const x = LEFT + j * (CELL + 2);
                  if (!c) return <rect key={j} x={x} y={y} width={CELL} height={CELL} class="gpu-empty" />;
                  const mine = c.d === 0;
                  return (
                    <g key={j}>
                      <rect x={x} y={y} width={CELL} height={CELL} rx={3}
                            fill={mine ? stageColor(c.s, parallel.pp) : undefined} class={mine ? 'gpu' : 'gpu other'} />
                      <text x={x + CELL / 2} y={y + CELL / 2 + 4} text-anchor="middle" class={mine ? 'gpu-text' : 'gpu-text other'}>
                        {mine ? `t${c.t}` : `d${c.d}`}
                      </text>
                    </g>
                  );
                })}
                {groups.map((g) => (
                  <rect key={`g${g.start}`} x={LEFT + g.start * (CELL + 2) - 2} y={y - 2}
                        width={(g.end - g.start + 1) * (CELL + 2)} height={CELL + 4} rx={5} class="tp-group" />
                ))}
                {row.cells.length > cells ? <text x={LEFT + cells * (CELL + 2) + 4} y={y + 17} class="svg-muted">+{row.cells.length - cells}</text> : null}
                {i < model.rows.length - 1 && !model.rows[i + 1].gap && parallel.pp > 1 &&
                 String(model.rows[i + 1].stages) !== String(row.stages) ? (
                  <text x={LEFT - 8} y={y + CELL + 13} class="svg-muted" text-anchor="end">↓ PP ({linkText(links.pp)})</text>
                ) : null}
              </g>
            );
          })}
        </svg>
      </div>
      <p class="sub">Coloured cells: replica 0 (label t = TP rank), outlined by TP group; grey cells (label d = DP rank) belong to
        other replicas sharing the node. {model.replicas > 1 ? `× ${model.replicas} replicas: only GPUs in the same position across replicas all-reduce gradients.` : ''}
        {' '}Rank order tp-cp-ep-dp-pp (Megatron's default).</p>
    </section>
  );
}
