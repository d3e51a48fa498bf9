// What the engine now says about its answers (issues #12, #10), shown on the page: hand-made
// answers in the engine's shapes (core/src/io/api.cpp, json_io.cpp, hf_config.h).
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/preact';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MoeCaveat, SearchNotices } from '../../src/app/App.jsx';
import { ChosenBySearch } from '../../src/components/ChosenBySearch.jsx';
import { ModelImport, mappingRows, readConfig } from '../../src/components/ModelImport.jsx';
import { PlanSummary } from '../../src/components/PlanSummary.jsx';
import { PlansTable } from '../../src/components/PlansTable.jsx';
import { plansToMarkdown } from '../../src/state/markdown.js';

afterEach(cleanup);

const parallel = { tp: 8, pp: 4, vpp: 1, dp: 32, cp: 1, ep: 1, micro_batch: 1, sequence_parallel: true, recompute: 'full', zero: 1 };
const timedPlan = {
  parallel, fits: true, fits_in_memory: true, training: { memory_headroom: 0.1 },
  memory_gb: { weights: 10, gradients: 10, optimizer: 5, activations: 20, total: 45, capacity: 80 },
  pipeline: { bubble_fraction: 0.03, bubble_ratio: 0.031, microbatches: 96 }, step_time_s: 12.5, mfu: 0.45, tokens_per_s: 1000,
  diagnostics: [],
};
// A grid that is not the cluster: "timed": false, no step time, MFU or throughput (json_io.cpp).
const untimedPlan = {
  ...timedPlan, fits: false, timed: false, step_time_s: null, mfu: null, hfu: null, tokens_per_s: null, time_s: null, days_to_train: null,
  diagnostics: [{ code: 'plan.gpu_count_mismatch', severity: 'error', message: 'tp·pp·dp·cp = 1,000 GPUs, but the cluster has 1,024' }],
};

describe('an untimed estimate', () => {
  it('shows the reason in place of step time and MFU, never a number', () => {
    render(<PlanSummary estimate={untimedPlan} rank={0} />);
    const summary = screen.getByTestId('plan-summary');
    const values = [...summary.querySelectorAll('dd')].map((d) => d.textContent);
    expect(values[1]).toBe('–');
    expect(values[2]).toBe('–');
    expect(screen.getByTestId('hidden-figures').textContent)
      .toBe('Step time and MFU not shown: not timed: tp·pp·dp·cp = 1,000 GPUs, but the cluster has 1,024.');
    expect(summary.textContent).not.toMatch(/tokens\/s|days to train/);
  });
  it('in the table and the Markdown', () => {
    render(<PlansTable plans={[untimedPlan]} selected={0} onSelect={() => {}} />);
    const cells = [...screen.getByRole('table').querySelectorAll('tbody td')].map((c) => c.textContent);
    expect(cells.slice(-2)).toEqual(['–', '–']);
    expect(screen.getByRole('table').querySelector('tbody td[title^="not timed"]')).toBeTruthy();
    const row = plansToMarkdown([untimedPlan]).trim().split('\n')[2];
    expect(row.endsWith('| – | – |')).toBe(true);
  });
  it('a timed plan still shows its figures, the bubble labelled as a share of the step', () => {
    render(<PlanSummary estimate={timedPlan} rank={0} />);
    expect(screen.getByText('12.50 s')).toBeTruthy();
    expect(screen.getByText('Bubble (of the step)')).toBeTruthy();
    expect(screen.getByText('3.0%')).toBeTruthy();
  });
});

describe('what the search says about its answer', () => {
  it('a capped search: the best of what was searched, and why', () => {
    render(<SearchNotices search={{ capped: true, capped_reason: 'stopped after 4,000,000 configurations at tp = 1: pin tp to search further.' }} shown={timedPlan} rank={0} />);
    expect(screen.getByTestId('search-capped').textContent)
      .toBe('The search was capped: this is the best plan of the configurations it searched, not necessarily the best there is. stopped after 4,000,000 configurations at tp = 1: pin tp to search further.');
  });
  it('a plan over the headroom', () => {
    render(<SearchNotices search={{ within_headroom: false }} shown={timedPlan} rank={0} />);
    expect(screen.getByTestId('search-headroom').textContent).toContain('(90% of HBM; 10% kept free)');
    expect(screen.getByTestId('search-headroom').textContent).toContain('less than the headroom');
  });
  it('a simpler plan preferred over the fastest within the tie tolerance', () => {
    render(<SearchNotices search={{ fastest: { ...parallel, zero: 2, cp: 2 }, tie_tolerance: 0.01, within_headroom: true }} shown={timedPlan} rank={0} />);
    const text = screen.getByTestId('search-fastest').textContent;
    expect(text).toContain('TP 8 · PP 4 · DP 32 · CP 2');
    expect(text).toContain('ZeRO-2');
    expect(text).toContain('tie tolerance of 1% of the step time');
    expect(screen.queryByTestId('search-capped')).toBeNull();
    expect(screen.queryByTestId('search-headroom')).toBeNull();
  });
  it('an ordinary search says nothing more', () => {
    const { container } = render(<SearchNotices search={{ capped: false, within_headroom: true, tie_tolerance: 0.01 }} shown={timedPlan} rank={0} />);
    expect(container.textContent).toBe('');
  });
  it('chosen_by_search names the fields the search filled', () => {
    render(<ChosenBySearch fields={['pp', 'micro_batch', 'zero']} />);
    expect(screen.getByTestId('chosen-by-search').textContent)
      .toBe('The search chose PP, micro-batch, ZeRO stage (the scenario leaves them open); the rest is as pinned.');
  });
});

describe('importing a Hugging Face config.json', () => {
  const hostile = '<img src=x onerror="window.pwned=1">';
  const answer = {
    model: { id: 'custom', name: hostile, layers: 32, hidden: 4096, heads: 32, kv_heads: 8, ffn_hidden: 14336, vocab: 128256, activation: 'swiglu', moe: null },
    mapped_from: { model_type: 'llama', layers: { from: 'num_hidden_layers', value: 32 }, activation: { from: 'hidden_act', value: 'silu', note: 'gated MLP with SiLU: SwiGLU' },
      [hostile]: { from: hostile, value: hostile } },
    notes: [`sliding window ${hostile} not modelled`],
  };
  it('reads the file as JSON and refuses what is not a config', () => {
    expect(readConfig('{"model_type": "llama"}')).toEqual({ config: { model_type: 'llama' } });
    expect(readConfig('not json').error).toBe('this is not valid JSON');
    expect(readConfig('[1]').error).toBe('a config.json is a JSON object');
    expect(mappingRows(answer.mapped_from)[1]).toEqual(['layers', 'num_hidden_layers', '32', '']);
  });
  it('fills the model and shows what was mapped, user text as text only', async () => {
    const importModel = vi.fn(async () => answer);
    const onImport = vi.fn();
    const { container } = render(<ModelImport onImport={onImport} importModel={importModel} />);
    fireEvent.input(screen.getByLabelText('Paste or drop a config.json'), { target: { value: '{"architectures": ["LlamaForCausalLM"]}' } });
    fireEvent.click(screen.getByRole('button', { name: 'Import' }));
    await waitFor(() => expect(onImport).toHaveBeenCalledWith(answer.model));
    expect(importModel).toHaveBeenCalledWith({ architectures: ['LlamaForCausalLM'] });
    const result = screen.getByTestId('hf-result');
    expect(result.textContent).toContain(`Imported ${hostile}`);
    expect(result.textContent).toContain('gated MLP with SiLU: SwiGLU');
    expect(screen.getByTestId('hf-notes').textContent).toContain(hostile);
    expect(container.querySelector('img')).toBeNull();
    expect(window.pwned).toBeUndefined();
  });
  it('shows the engine\'s refusal with its field', async () => {
    const importModel = vi.fn(async () => {
      const e = new Error('unknown architecture "FooForCausalLM"; fields found: hidden_size'); e.code = 'import.unknown_architecture'; e.path = '/config/architectures';
      throw e;
    });
    const onImport = vi.fn();
    render(<ModelImport onImport={onImport} importModel={importModel} />);
    fireEvent.input(screen.getByLabelText('Paste or drop a config.json'), { target: { value: '{"architectures": ["FooForCausalLM"]}' } });
    fireEvent.click(screen.getByRole('button', { name: 'Import' }));
    const error = await screen.findByTestId('hf-error');
    expect(error.textContent).toBe('Not imported: unknown architecture "FooForCausalLM"; fields found: hidden_size (import.unknown_architecture at /config/architectures)');
    expect(onImport).not.toHaveBeenCalled();
  });
});

describe('the MoE caveat reads what hides the all-to-all from the engine (ep_comm_overlap)', () => {
  const moe = { moe: { experts: 256 } };
  const plan = (overlap) => ({ mfu: 0.2, pipeline: { bubble_fraction: 0.05 }, parallel: { schedule: '1f1b', ep: 8 }, ep_comm_overlap: overlap });

  it('says the all-to-all is charged in full when nothing hides it', () => {
    render(<MoeCaveat estimate={plan('none')} modelSpec={moe} />);
    expect(screen.getByTestId('moe-caveat').textContent).toMatch(/charges the expert all-to-all.*in full/);
  });

  it('does not, whatever the schedule, when Megatron\'s combined 1F1B hides it', () => {
    render(<MoeCaveat estimate={plan('combined-1f1b')} modelSpec={moe} />);
    expect(screen.getByTestId('moe-caveat').textContent).not.toMatch(/in full/);
  });
});
