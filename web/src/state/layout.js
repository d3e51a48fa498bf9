// Reading the engine's replica view (the `layout_view` command; core/include/pplan/launch/layout.h
// replica_view) for the layout picture. Pure. Where ranks sit is the engine's answer: nothing
// here knows Megatron's rank formula.

/** "0–7" for a long ascending list, "0, 1" for a short one. */
export function span(xs) {
  return xs.length > 2 ? `${xs[0]}–${xs[xs.length - 1]}` : xs.join(', ');
}

/** "stage 0" or "stage 0 · cp 0–3": replica 0's part of a node row. */
export function rowCaption(row, cp) {
  if (!row.stages || !row.stages.length) return '';
  return `stage ${span(row.stages)}${cp > 1 ? ` · cp ${span(row.cp_ranks)}` : ''}`;
}

/** "NVLink", "network" or "—" for a view link ("nvlink" | "network" | "none"). */
export function linkText(link) {
  const kind = link && typeof link === 'object' ? link.link : link;
  return kind === 'network' ? 'network' : kind === 'nvlink' ? 'NVLink' : '—';
}

/**
 * Replica 0's TP groups among the first `count` GPUs of a row: runs of neighbouring cells of
 * replica 0 (dp 0) with the same CP rank and stage, a new run at each tp 0.
 */
export function tpRuns(gpus, count = gpus.length) {
  const runs = [];
  gpus.slice(0, count).forEach((g, j) => {
    if (!g || g.dp !== 0) return;
    const last = runs[runs.length - 1];
    if (last && last.end === j - 1 && last.cp === g.cp && last.pp === g.pp && g.tp !== 0) last.end = j;
    else runs.push({ start: j, end: j, cp: g.cp, pp: g.pp });
  });
  return runs;
}

/** True when rows `i` and `i + 1` are node rows holding different stages (a PP hop is drawn). */
export function stageChangesAfter(rows, i) {
  const here = rows[i];
  const next = rows[i + 1];
  return Boolean(here && next && !here.collapsed_nodes && !next.collapsed_nodes &&
    String(next.stages) !== String(here.stages));
}
