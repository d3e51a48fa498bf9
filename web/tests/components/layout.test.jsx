// The layout picture drawn from the real engine's layout_view: expectations are derived by hand
// from Megatron's rank formula rank = t + tp·(c + cp·(d + dp·s)) (Megatron-LM d98e8a64 parallel_state.py RankGenerator), which only
// the engine applies.
import { cleanup, render, screen } from '@testing-library/preact';
import { afterEach, describe, expect, it } from 'vitest';
import { LayoutPicture } from '../../src/components/LayoutPicture.jsx';
import { layoutView } from '../../src/engine/index.js';
import gpt3 from '../../../examples/gpt3-175b-1024-a100.json';

afterEach(cleanup);


/** The GPT-3 example on another grid: pinned tp, pp (and dp, cp) pick the plan drawn. */
async function drawn(parallel, cluster = {}) {
  const scenario = { ...gpt3, cluster: { ...gpt3.cluster, ...cluster }, parallel };
  const response = await layoutView(scenario);
  const { container } = render(<LayoutPicture layout={{ response }} />);
  const labels = [...container.querySelectorAll('text.svg-label')].map((t) => t.textContent);
  return { response, container, labels };
}

describe('the layout picture renders the engine\'s view', () => {
  it('GPT-3 t8 p8 dp16 on 8-GPU nodes: 8 rows, one stage each, 16 replicas', async () => {
    // Replica 0's stage s starts at rank 8·16·s = node 16·s.
    const { container, labels } = await drawn({ tp: 8, pp: 8 });
    expect(labels).toEqual(['node 0', 'node 16', 'node 32', 'node 48', 'node 64', 'node 80', 'node 96', 'node 112']);
    expect(screen.getByText(/1,024 GPUs = 128 nodes × 8\. One replica = 64 GPUs on 8 nodes; 16 identical replicas/)).toBeTruthy();
    expect(screen.getByText(/TP 8/).parentElement.textContent).toBe('TP 8 over NVLink');
    expect(screen.getByText(/PP 8/).parentElement.textContent).toBe('PP 8 stage to stage over network');
    expect(container.querySelectorAll('rect.tp-group')).toHaveLength(8);
    expect(container.querySelectorAll('rect.gpu.other')).toHaveLength(0);
    expect(screen.getByRole('img').getAttribute('aria-label')).toBe('Replica 0 of 16: 8 nodes shown as rows of GPUs, coloured by pipeline stage');
  });

  it('Megatron-LM RankGenerator world 16, TP2 PP4 DP2: replica 0 = ranks 0,1,4,5,8,9,12,13 on nodes 0 and 1', async () => {
    const { container, labels } = await drawn({ tp: 2, pp: 4, dp: 2 }, { gpus: 16 });
    expect(labels).toEqual(['node 0', 'node 1']);
    const titles = [...container.querySelectorAll('g > title')].map((t) => t.textContent);
    const replica0 = titles.filter((t) => t.includes('dp 0')).map((t) => Number(t.match(/^rank (\d+)/)[1]));
    expect(replica0).toEqual([0, 1, 4, 5, 8, 9, 12, 13]);
    expect(container.querySelectorAll('rect.gpu.other')).toHaveLength(8);  // the other replica
    expect(screen.getByText('stage 0, 1')).toBeTruthy();
    expect(screen.getByText('stage 2, 3')).toBeTruthy();
    expect(container.querySelectorAll('rect.tp-group')).toHaveLength(4);   // replica 0's 8 ranks / tp 2
  });

  it('3072 GPUs, t8 p64 dp6: 64 replica nodes drawn as 5 + "55 more" + 4 rows', async () => {
    const { labels, response } = await drawn({ tp: 8, pp: 64, dp: 6 }, { gpus: 3072 });
    expect(response.view.replica_nodes).toBe(64);
    // Stage s at rank 48·s → node 6·s: first five and last four stages.
    expect(labels).toEqual(['node 0', 'node 6', 'node 12', 'node 18', 'node 24', 'node 360', 'node 366', 'node 372', 'node 378']);
    expect(screen.getByText(/55 more nodes of this replica/)).toBeTruthy();
  });

  it('TP wider than a node is flagged', async () => {
    await drawn({ tp: 16, pp: 1, dp: 4 }, { gpus: 64 });
    expect(screen.getByText(/TP 16/).parentElement.textContent).toBe('TP 16 over network — crosses nodes!');
  });

  it('a grid that is not the cluster shows the engine\'s reason instead of a picture', async () => {
    // cp pinned too: left open, the search would fill it (cp 4 makes the grid 1,024 again).
    const { container } = await drawn({ tp: 8, pp: 8, dp: 4, cp: 1 });
    expect(container.querySelector('svg')).toBeNull();
    expect(screen.getByText(/256 ranks, but the cluster has 1024 GPUs/)).toBeTruthy();
  });
});
