// Where a plan's ranks land on the machine, for the layout picture. Pure.
// Megatron's default rank order tp-cp-ep-dp-pp, tp fastest-varying (shared/reference/launch.md
// §1.5; core/include/pplan/placement.h): global rank r = t + tp·(c + cp·(d + dp·s)).
// Expert parallelism re-slices cp·dp into ep groups (stride tp) and is shown as a note.
// The engine's `launch --format layout` lists every rank and group; the picture needs only the
// nodes of replica 0 for whichever plan is selected, so it applies the same formula here rather
// than fetching (and parsing) a per-rank document of up to a million entries.

/** (tp, cp, dp, pp) coordinates of global rank r. */
export function coordsOfRank(r, p) {
  const t = r % p.tp;
  const c = Math.floor(r / p.tp) % p.cp;
  const d = Math.floor(r / (p.tp * p.cp)) % p.dp;
  const s = Math.floor(r / (p.tp * p.cp * p.dp));
  return { t, c, d, s };
}

/** Global rank of coordinates. */
export function rankOf({ t, c, d, s }, p) {
  return t + p.tp * (c + p.cp * (d + p.dp * s));
}

/** Nodes spanned by one group of `size` ranks spaced `stride` apart (group 0). */
export function nodesSpanned(stride, size, gpusPerNode) {
  const first = 0;
  const last = stride * (size - 1);
  if (stride >= gpusPerNode) return size;
  return Math.floor(last / gpusPerNode) - Math.floor(first / gpusPerNode) + 1;
}

/**
 * The picture's model: replica 0 (DP rank 0) drawn node by node, each node's GPUs with their
 * coordinates; identical replicas collapsed into a count. Long pipelines keep their first and
 * last nodes and collapse the middle, so 1024+ GPUs stay readable.
 */
export function layoutModel(parallel, gpus, gpusPerNode, maxRows = 10) {
  const p = { tp: parallel.tp, cp: parallel.cp, dp: parallel.dp, pp: parallel.pp };
  const gpn = Math.max(1, gpusPerNode);
  const replicaNodes = new Set();
  for (let s = 0; s < p.pp; s++) {
    for (let c = 0; c < p.cp; c++) {
      const r0 = rankOf({ t: 0, c, d: 0, s }, p);
      for (let t = 0; t < p.tp; t += Math.max(1, Math.min(p.tp, gpn))) replicaNodes.add(Math.floor((r0 + t) / gpn));
      replicaNodes.add(Math.floor((r0 + p.tp - 1) / gpn));
    }
  }
  const nodeList = [...replicaNodes].sort((a, b) => a - b);
  const rowOf = (node) => {
    const cells = [];
    for (let i = 0; i < gpn; i++) {
      const rank = node * gpn + i;
      if (rank >= gpus) { cells.push(null); continue; }
      cells.push({ rank, ...coordsOfRank(rank, p) });
    }
    const mine = cells.filter((x) => x && x.d === 0);
    const stages = [...new Set(mine.map((x) => x.s))];
    const cpRanks = [...new Set(mine.map((x) => x.c))];
    return { node, cells, stages, cpRanks };
  };
  let rows;
  if (nodeList.length <= maxRows) {
    rows = nodeList.map(rowOf);
  } else {
    const head = Math.ceil((maxRows - 1) / 2);
    const tail = maxRows - 1 - head;
    rows = [...nodeList.slice(0, head).map(rowOf),
      { gap: nodeList.length - head - tail },
      ...nodeList.slice(nodeList.length - tail).map(rowOf)];
  }
  const stride = { tp: 1, cp: p.tp, dp: p.tp * p.cp, pp: p.tp * p.cp * p.dp, ep: p.tp };
  const link = (axis, size) => (size <= 1 ? null : nodesSpanned(stride[axis], size, gpn) > 1 ? 'network' : 'NVLink');
  // A PP hop crosses nodes when neighbouring stages of replica 0 sit on different nodes.
  const ppHop = p.pp > 1
    ? (Math.floor(rankOf({ t: 0, c: 0, d: 0, s: 1 }, p) / gpn) !== Math.floor(0 / gpn) ? 'network' : 'NVLink')
    : null;
  return {
    nodes: Math.ceil(gpus / gpn),
    gpusPerReplica: p.tp * p.cp * p.pp,
    replicas: p.dp,
    replicaNodes: nodeList.length,
    sharedNodes: nodeList.length * gpn > p.tp * p.cp * p.pp,
    rows,
    links: {
      tp: link('tp', p.tp), cp: link('cp', p.cp), pp: ppHop, dp: link('dp', p.dp),
      ep: parallel.ep > 1 ? link('ep', parallel.ep) : null,
    },
  };
}
