// The layout picture (Narayanan et al. 2021 Fig. 3): nodes as rows of GPUs; one DP replica drawn in
// full, coloured by pipeline stage, TP groups outlined; identical replicas collapsed to a count.
// What to draw is the engine's replica view (`layout_view`): this file only renders it.
import { linkText, rowCaption, stageChangesAfter, tpRuns } from '../state/layout.js';
import { ChosenBySearch } from './ChosenBySearch.jsx';
import { groupDigits } from '../state/format.js';

const CELL = 26;
const GAP = 4;
const LEFT = 118;
const MAX_CELLS = 16;

// Light fills with dark labels: at least 4.5:1 contrast for every hue.
const stageColor = (s, pp) => `hsl(${Math.round((s * 300) / Math.max(1, pp))}, 62%, 80%)`;

/** `layout`: {response} from the engine's layout_view, {error}, or null while it computes. */
export function LayoutPicture({ layout }) {
  if (!layout) return null;
  if (layout.error || !layout.response.view) {
    const problems = layout.error ? [layout.error] : layout.response.problems || [];
    return (
      <section class="card" aria-labelledby="layout-h">
        <h3 id="layout-h">Layout on the cluster</h3>
        {problems.map((p) => <p class="sub" key={p.code}>{p.message}</p>)}
      </section>
    );
  }
  const view = layout.response.view;
  const sizes = view.sizes;
  const gpusPerNode = view.gpus_per_node;
  const cells = Math.min(gpusPerNode, MAX_CELLS);
  const width = LEFT + cells * (CELL + 2) + 70;
  const rowH = CELL + 18;
  const height = view.rows.length * rowH + 8;
  const { links } = view;
  const summary = `${groupDigits(view.world_size)} GPUs = ${groupDigits(view.nodes)} nodes × ${gpusPerNode}. ` +
    `One replica = ${view.gpus_per_replica} GPUs on ${view.replica_nodes} node${view.replica_nodes > 1 ? 's' : ''}; ` +
    `${view.replicas} identical replica${view.replicas > 1 ? 's' : ''} (DP).`;
  return (
    <section class="card" aria-labelledby="layout-h">
      <h3 id="layout-h">Layout on the cluster</h3>
      <p class="sub">{summary}</p>
      <ChosenBySearch fields={layout.response.chosen_by_search} />
      <ul class="links">
        <li><b>TP {sizes.tp}</b> {sizes.tp > 1 ? `over ${linkText(links.tp)}` : '(none)'}{links.tp.link === 'network' ? ' — crosses nodes!' : ''}</li>
        {sizes.cp > 1 ? <li><b>CP {sizes.cp}</b> over {linkText(links.cp)}</li> : null}
        <li><b>PP {sizes.pp}</b> {sizes.pp > 1 ? `stage to stage over ${linkText(links.pp)}` : '(none)'}</li>
        <li><b>DP {sizes.dp}</b> {sizes.dp > 1 ? `gradient all-reduce over ${linkText(links.dp_cp)}, once per step` : '(none)'}</li>
        {sizes.ep > 1 ? <li><b>EP {sizes.ep}</b> all-to-all over {linkText(links.ep)}</li> : null}
      </ul>
      <div class="scroll-x">
        <svg class="layout" viewBox={`0 0 ${width} ${height}`} width={width} height={height} role="img"
             aria-label={`Replica 0 of ${view.replicas}: ${view.replica_nodes} nodes shown as rows of GPUs, coloured by pipeline stage`}>
          {view.rows.map((row, i) => {
            const y = GAP + i * rowH;
            if (row.collapsed_nodes) {
              return (
                <text key={`gap${i}`} x={LEFT + (cells * (CELL + 2)) / 2} y={y + CELL / 2 + 6} class="svg-muted" text-anchor="middle">
                  ⋮ {row.collapsed_nodes} more nodes of this replica ⋮
                </text>
              );
            }
            const shown = row.gpus.slice(0, cells);
            const hidden = row.gpus.length + row.more_gpus - shown.length;
            return (
              <g key={row.node}>
                <text x={0} y={y + 12} class="svg-label">node {row.node}</text>
                <text x={0} y={y + 26} class="svg-muted">{rowCaption(row, sizes.cp)}</text>
                {shown.map((g, j) => {
                  const x = LEFT + j * (CELL + 2);
                  if (!g) return <rect key={j} x={x} y={y} width={CELL} height={CELL} class="gpu-empty" />;
                  const mine = g.dp === 0;
                  return (
                    <g key={j}>
                      <title>{`rank ${g.rank}: tp ${g.tp}, cp ${g.cp}, dp ${g.dp}, pp ${g.pp}${g.ep !== undefined ? `, ep ${g.ep}` : ''}`}</title>
                      <rect x={x} y={y} width={CELL} height={CELL} rx={3}
                            fill={mine ? stageColor(g.pp, sizes.pp) : undefined} class={mine ? 'gpu' : 'gpu other'} />
                      <text x={x + CELL / 2} y={y + CELL / 2 + 4} text-anchor="middle" class={mine ? 'gpu-text dark' : 'gpu-text other'}>
                        {mine ? `t${g.tp}` : `d${g.dp}`}
                      </text>
                    </g>
                  );
                })}
                {tpRuns(shown).map((run) => (
                  <rect key={`g${run.start}`} x={LEFT + run.start * (CELL + 2) - 2} y={y - 2}
                        width={(run.end - run.start + 1) * (CELL + 2)} height={CELL + 4} rx={5} class="tp-group" />
                ))}
                {hidden > 0 ? <text x={LEFT + cells * (CELL + 2) + 4} y={y + 17} class="svg-muted">+{hidden}</text> : null}
                {sizes.pp > 1 && stageChangesAfter(view.rows, i) ? (
                  <text x={LEFT - 8} y={y + CELL + 13} class="svg-muted" text-anchor="end">↓ PP ({linkText(links.pp)})</text>
                ) : null}
              </g>
            );
          })}
        </svg>
      </div>
      <p class="sub">Coloured cells: replica 0 (label t = TP rank), outlined by TP group; grey cells (label d = DP rank) belong to
        other replicas sharing the node. {view.replicas > 1 ? `× ${view.replicas} replicas: only GPUs in the same position across replicas all-reduce gradients.` : ''}
        {' '}Rank order {view.order} (Megatron's default).</p>
    </section>
  );
}
