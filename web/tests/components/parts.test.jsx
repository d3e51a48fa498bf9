// Single components with hand-made data: what they tell the user.
import { cleanup, fireEvent, render, screen } from '@testing-library/preact';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Banner } from '../../src/components/Banner.jsx';
import { MemoryBar } from '../../src/components/MemoryBar.jsx';
import { PlansTable } from '../../src/components/PlansTable.jsx';
import { ScatterPlot } from '../../src/components/ScatterPlot.jsx';
import { Diagnostics } from '../../src/components/Diagnostics.jsx';
import { iframeSnippet } from '../../src/components/SharePanel.jsx';
import { LaunchPanel } from '../../src/components/LaunchPanel.jsx';

afterEach(cleanup);

const plan = (over = {}) => ({
  parallel: { tp: 8, pp: 4, vpp: 1, dp: 32, cp: 1, ep: 1, micro_batch: 1, recompute: 'full', zero: 1 },
  fits: true, fits_in_memory: true,
  memory_gb: { weights: 10, gradients: 10, optimizer: 5, activations: 20, total: 45, capacity: 80 },
  pipeline: { bubble_fraction: 0.03, microbatches: 96 }, step_time_s: 12.5, mfu: 0.45, ...over,
});

describe('MemoryBar', () => {
  it('says when the plan fits and states every part', () => {
    render(<MemoryBar memory={plan().memory_gb} />);
    expect(screen.getByText('fits in memory')).toBeTruthy();
    expect(screen.getByText('20.00 GB')).toBeTruthy();
    expect(screen.getByRole('img').getAttribute('aria-label')).toContain('Activations 20.00 GB');
  });
  it('says when it does not', () => {
    render(<MemoryBar memory={{ weights: 40, gradients: 40, optimizer: 20, activations: 10, total: 110, capacity: 80 }} />);
    expect(screen.getByText('does not fit')).toBeTruthy();
    expect(screen.getByRole('heading').textContent).toContain('110.00 GB of 80.0 GB');
  });
});

describe('PlansTable', () => {
  it('lists plans and selects one by keyboard-reachable buttons', () => {
    const onSelect = vi.fn();
    render(<PlansTable plans={[plan(), plan({ fits_in_memory: false })]} selected={0} onSelect={onSelect} />);
    expect(screen.getAllByRole('row')).toHaveLength(3);
    expect(screen.getByRole('button', { name: 'Select plan 1' }).getAttribute('aria-pressed')).toBe('true');
    fireEvent.click(screen.getByRole('button', { name: 'Select plan 2' }));
    expect(onSelect).toHaveBeenCalledWith(1);
    expect(screen.getAllByText('45.0 GB')).toHaveLength(2);
  });
});

describe('Banner', () => {
  it('explains a bad link and can be dismissed', () => {
    const onDismiss = vi.fn();
    render(<Banner warning={{ kind: 'corrupt', message: 'this link looks truncated or corrupt' }} onDismiss={onDismiss} />);
    expect(screen.getByRole('status').textContent).toMatch(/could not be read.*truncated.*default example/);
    fireEvent.click(screen.getByRole('button', { name: 'Dismiss notice' }));
    expect(onDismiss).toHaveBeenCalled();
  });
});

describe('Diagnostics', () => {
  it('lists the reasons a search found nothing', () => {
    render(<Diagnostics hasPlans={false} search={{ configs_evaluated: 12, feasible: 0, rejected_by_reason: { 'plan.out_of_memory': 12 }, capped: false }} />);
    expect(screen.getByText('No configuration fits')).toBeTruthy();
    expect(screen.getByText(/plan\.out_of_memory ×12/)).toBeTruthy();
  });
});

describe('LaunchPanel', () => {
  it('shows the engine error gracefully', () => {
    render(<LaunchPanel format="megatron" onFormat={() => {}} launch={{ format: 'megatron', error: { message: 'not available yet' } }} />);
    expect(screen.getByRole('status').textContent).toContain('not available yet');
  });
  it('shows the text with a copy button', () => {
    render(<LaunchPanel format="slurm" onFormat={() => {}} launch={{ format: 'slurm', response: { format: 'slurm', text: '#!/bin/bash\nsrun x' } }} />);
    expect(screen.getByRole('button', { name: 'Copy' })).toBeTruthy();
    expect(screen.getByLabelText('slurm launch text').textContent).toContain('srun x');
  });
  it('offers to price the plan for the framework the format runs when it was priced for another', () => {
    const response = { format: 'megatron', text: '', problems: [{ code: 'megatron.priced_for_another_framework',
      message: 'the plan is priced for torchtitan', source: 'pplan: the scenario\'s training.framework is not Megatron-Core' }] };
    const priced = [];
    render(<LaunchPanel format="megatron" onFormat={() => {}} launch={{ format: 'megatron', response }} onReprice={(fw) => priced.push(fw)} />);
    fireEvent.click(screen.getByTestId('reprice'));
    expect(screen.getByTestId('reprice').textContent).toBe('Price this plan for Megatron-Core');
    expect(priced).toEqual(['megatron-core']);
    cleanup();
    const titan = { ...response, format: 'torchtitan-toml', problems: [{ ...response.problems[0], code: 'torchtitan.priced_for_another_framework' }] };
    render(<LaunchPanel format="torchtitan-toml" onFormat={() => {}} launch={{ format: 'torchtitan-toml', response: titan }} onReprice={(fw) => priced.push(fw)} />);
    fireEvent.click(screen.getByTestId('reprice'));
    expect(priced).toEqual(['megatron-core', 'torchtitan']);
  });
  it('a schedule the framework does not run: one click prices the plan with one it runs (1F1B, or interleaved with v > 1)', () => {
    const refusal = (code, parallel) => ({ format: 'nemo', text: '', plan: { parallel: { tp: 1, pp: 16, dp: 128, cp: 1, ep: 64, micro_batch: 1, recompute: 'selective', zero: 1, ...parallel } },
      problems: [{ code, message: 'the plan is priced with the dualpipe schedule; this framework runs 1F1B and interleaved 1F1B only. Set parallel.schedule to one it runs (or leave it to the search)' }] });
    const fixes = [];
    render(<LaunchPanel format="nemo" onFormat={() => {}} launch={{ format: 'nemo', response: refusal('megatron.schedule_unsupported', { vpp: 1, schedule: 'dualpipe' }) }}
                        onFix={(patch) => fixes.push(patch)} />);
    expect(screen.getByTestId('launch-fix-schedule').textContent).toContain('priced with the DualPipe schedule, which Megatron-Core does not run');
    expect(screen.getByText(/^For the plan TP 1 · PP 16 \(DualPipe\) · DP 128 · EP 64,/)).toBeTruthy();
    fireEvent.click(screen.getByTestId('fix-schedule'));
    expect(screen.getByTestId('fix-schedule').textContent).toBe('Price this plan with 1F1B');
    cleanup();
    render(<LaunchPanel format="torchtitan" onFormat={() => {}} launch={{ format: 'torchtitan', response: refusal('torchtitan.schedule_unsupported', { vpp: 2, schedule: 'dualpipev' }) }}
                        onFix={(patch) => fixes.push(patch)} />);
    expect(screen.getByTestId('launch-fix-schedule').textContent).toContain('which torchtitan does not run');
    fireEvent.click(screen.getByTestId('fix-schedule'));
    expect(fixes).toEqual([{ sched: '1f1b' }, { sched: 'interleaved' }]);
    cleanup();
    // DeepSpeed runs 1F1B only, one chunk per rank: a V plan's two chunks are left to the search.
    render(<LaunchPanel format="deepspeed" onFormat={() => {}} launch={{ format: 'deepspeed', response: refusal('deepspeed.schedule_unsupported', { vpp: 2, schedule: 'zb-v' }) }}
                        onFix={(patch) => fixes.push(patch)} />);
    expect(screen.getByTestId('launch-fix-schedule').textContent).toContain('priced with the ZB-V schedule, which DeepSpeed does not run');
    fireEvent.click(screen.getByTestId('fix-schedule'));
    expect(fixes[2]).toEqual({ sched: '1f1b', vpp: '' });
    cleanup();
    // Without a way to apply it (an embed), no button.
    render(<LaunchPanel format="nemo" onFormat={() => {}} launch={{ format: 'nemo', response: refusal('megatron.schedule_unsupported', { vpp: 1, schedule: 'zb-v' }) }} />);
    expect(screen.queryByTestId('fix-schedule')).toBeNull();
  });

  it('the FP8 SwiGLU input store: Megatron-LM offers NeMo (which sets it) or the switch off; torchtitan and DeepSpeed the switch off', () => {
    const response = (format, code) => ({ format, text: '', problems: [{ code, message: 'set training.activation_func_fp8_input_store false' }] });
    const fixes = [];
    const formats = [];
    render(<LaunchPanel format="megatron" onFormat={(f) => formats.push(f)} onFix={(patch) => fixes.push(patch)}
                        launch={{ format: 'megatron', response: response('megatron', 'megatron.activation_fp8_store_no_flag') }} />);
    fireEvent.click(screen.getByTestId('fix-nemo'));
    fireEvent.click(screen.getByTestId('fix-f8s'));
    expect(formats).toEqual(['nemo']);
    expect(fixes).toEqual([{ f8s: '' }]);
    for (const [format, code] of [['torchtitan-toml', 'torchtitan.activation_fp8_store'], ['deepspeed', 'deepspeed.activation_fp8_store']]) {
      cleanup();
      render(<LaunchPanel format={format} onFormat={() => {}} onFix={(patch) => fixes.push(patch)} launch={{ format, response: response(format, code) }} />);
      expect(screen.queryByTestId('fix-nemo')).toBeNull();
      fireEvent.click(screen.getByTestId('fix-f8s'));
    }
    expect(fixes).toEqual([{ f8s: '' }, { f8s: '' }, { f8s: '' }]);
  });

  it('names each refusal with the framework source line that states it, and shows warnings', () => {
    const response = {
      format: 'deepspeed', text: '',
      problems: [{ code: 'deepspeed.moe_zero3', message: 'DeepSpeed does not run MoE under ZeRO-3: use zero 1 or 2',
        source: 'DeepSpeed edaa7221 deepspeed/runtime/engine.py:1890' }],
      warnings: [{ code: 'torchtitan.document_mask', message: 'torchtitan masks attention per document' }],
    };
    const { container } = render(<LaunchPanel format="deepspeed" onFormat={() => {}} launch={{ format: 'deepspeed', response }} />);
    const refusal = container.querySelector('li.error');
    expect(refusal.textContent).toContain('use zero 1 or 2');
    expect(refusal.querySelector('.problem-source').textContent).toBe(' (DeepSpeed edaa7221 deepspeed/runtime/engine.py:1890)');
    expect(container.querySelector('li.warning').textContent).toBe('torchtitan masks attention per document');
  });
});

describe('iframe snippet', () => {
  it('is sandboxed with only what the page needs and escapes the URL', () => {
    const s = iframeSnippet('https://w.example/pplan/?embed=1#v=1&model="x"');
    expect(s).toContain('sandbox="allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox"');
    expect(s).toContain('src="https://w.example/pplan/?embed=1#v=1&amp;model=&quot;x&quot;"');
    expect(s).not.toMatch(/allow-top-navigation|allow-forms|allow-modals/);
  });
});

describe('ScatterPlot', () => {
  const point = (step, mem, rank = null) => ({
    parallel: { tp: 8, pp: 8, vpp: 1, dp: 16, cp: 1, ep: 1, micro_batch: 1, sequence_parallel: true, recompute: 'selective', zero: 0 },
    memory_gb: mem, step_time_s: step, mfu: 0.5, pareto: rank === 0, rank,
  });
  const landscape = (points) => ({ response: { landscape: { points, capacity_gb: 85.9, feasible: points.length, evaluated: 10, pareto_points: 1 } } });

  it('says in words when one configuration is all there is, and offers to unpin', () => {
    let unpinned = 0;
    const { container } = render(<ScatterPlot landscape={landscape([point(21.84, 60, 0)])} pinned onUnpinAll={() => { unpinned += 1; }} />);
    expect(container.querySelector('svg')).toBeNull();
    expect(screen.getByTestId('scatter-degenerate').textContent).toMatch(/^Only one configuration is feasible \(/);
    fireEvent.click(screen.getByText('Unpin all to see every layout'));
    expect(unpinned).toBe(1);
  });

  it('does not draw a constant time axis', () => {
    const { container } = render(<ScatterPlot landscape={landscape([point(21.84, 60, 0), point(21.84, 70), point(21.84, 75)])} />);
    expect(container.querySelector('svg')).toBeNull();
    expect(screen.getByTestId('scatter-degenerate').textContent).toContain('All 3 configurations drawn take 21.84 s per step');
  });

  it('labels each time tick once on a narrow range', () => {
    const { container } = render(<ScatterPlot landscape={landscape([point(21.84, 60, 0), point(21.86, 70), point(21.9, 75)])} />);
    const labels = [...container.querySelectorAll('svg text.svg-muted')].map((t) => t.textContent).filter((t) => / s$/.test(t));
    expect(labels.length).toBeGreaterThan(1);
    expect(new Set(labels).size).toBe(labels.length);
  });
});
