// The design report tab in jsdom with the real engine: what a user sees. Figures the time model
// produces (step time) are never asserted as constants: the days to train is checked against
// the definition (formula 12) applied to the step time the report shows.
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/preact';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { App } from '../../src/app/App.jsx';
import { ReportPanel } from '../../src/components/ReportPanel.jsx';
import { createStore } from '../../src/state/store.js';
import { fmtReportNumber } from '../../src/state/format.js';

afterEach(() => { cleanup(); vi.unstubAllGlobals(); });

async function openReport(setup) {
  const store = createStore({ win: null });
  render(<App store={store} />);
  await store.init();
  await waitFor(() => expect(store.presets.value).not.toBeNull());
  if (setup) await setup(store);
  fireEvent.click(screen.getByRole('button', { name: 'Design report' }));
  await waitFor(() => expect(screen.getByRole('button', { name: 'Copy report as Markdown' })).toBeTruthy(), { timeout: 30000 });
  return store;
}

/** The figure row of a report section: [label, value text, reference link or null]. */
function figure(label) {
  const row = screen.getByRole('rowheader', { name: label }).closest('tr');
  const cells = row.querySelectorAll('td');
  return { value: cells[0].textContent, link: within(row).queryByRole('link') };
}

const stepTimeS = (store) => store.report.value.response.report.sections
  .find((s) => s.id === 'throughput').figures.find((f) => f.key === 'step_time_s').value;

describe('design report', () => {
  it('shows the trillion-parameter example: checkpoint size with its formula, days to train from the token budget', async () => {
    const store = await openReport(async (s) => {
      s.loadExample('megatron-1t-3072-a100.json');
      await waitFor(() => expect(s.state.value.model).toBe('megatron-1t'));
      await s.compute();
    });
    expect(screen.getByLabelText('Token budget (tokens)').value).toBe('450B'); // 450000000000 in the file, shown normalised
    expect(screen.getByRole('heading', { level: 2 }).textContent).toBe('Design report: Megatron GPT 1T on 3072 × NVIDIA A100 SXM4 80GB');

    // 14 bytes per parameter (bf16 weights + fp32 Adam states) × 1008e9 (Narayanan et al. 2021 Table 1) = 14,112 GB,
    // shown as 14.11 TB (the page writes 1000 GB and up in TB).
    const checkpoint = figure('checkpoint size');
    expect(checkpoint.value).toBe('14.11 TB');
    expect(checkpoint.link.textContent).toBe('[13]');
    expect(checkpoint.link.getAttribute('href')).toBe('#formula-13');
    const formula = document.getElementById('formula-13');
    expect(within(screen.getByRole('region', { name: 'Formulas' })).getByText('Checkpoint size')).toBeTruthy();
    expect(formula.textContent).toMatch(/Checkpoint size = 14 bytes × Ψ.*Source: Rajbhandari et al\. 2020/);
    fireEvent.click(checkpoint.link);
    expect(document.activeElement).toBe(formula);

    // Formula 12: days = token budget / (global batch · seq_len / step time · 86,400 s).
    const days = 450e9 / ((3072 * 2048) / stepTimeS(store) * 86400);
    const shown = figure('days to train (no failures)');
    expect(shown.value).toBe(`${fmtReportNumber(days)} days`);
    expect(shown.link.getAttribute('href')).toBe('#formula-12');
    expect(document.getElementById('formula-12').textContent).toMatch(/Days to train = token budget \/ tokens per day/);

    // Every reference in the report points at a formula in the list.
    for (const link of screen.getAllByRole('link', { name: /^formula \d+/ })) {
      expect(document.getElementById(link.getAttribute('href').slice(1)), link.getAttribute('href')).not.toBeNull();
    }
  });

  it('takes the token budget and report inputs from the form, and copies the Markdown as plain text', async () => {
    const writeText = vi.fn(async () => {});
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
    vi.stubGlobal('isSecureContext', true);
    const store = await openReport();
    expect(screen.queryByRole('rowheader', { name: 'days to train (no failures)' })).toBeNull();

    fireEvent.input(screen.getByLabelText('Token budget (tokens)'), { target: { value: '300e9' } });
    fireEvent.input(screen.getByLabelText('Restart time (s)'), { target: { value: '120' } });
    fireEvent.input(screen.getByLabelText('Storage write GB/s'), { target: { value: '500' } });
    await store.compute();
    await waitFor(() => expect(screen.getByRole('rowheader', { name: 'days to train (no failures)' })).toBeTruthy());
    const days = 300e9 / ((1536 * 2048) / stepTimeS(store) * 86400);
    expect(figure('days to train (no failures)').value).toBe(`${fmtReportNumber(days)} days`);
    expect(figure('storage write bandwidth').value).toBe('500 GB/s');
    // Restart R = 120 s + reading back 14 B × Ψ at 500 GB/s (formula 22); Ψ from the report.
    const params = store.report.value.response.report.sections[1].figures.find((f) => f.key === 'params_total').value;
    expect(figure('restart time R').value).toBe(`${fmtReportNumber(120 + (14 * params) / 500e9)} s`);

    fireEvent.click(screen.getByRole('button', { name: 'Copy report as Markdown' }));
    await waitFor(() => expect(writeText).toHaveBeenCalled());
    const text = writeText.mock.calls[0][0];
    expect(text).toBe(store.report.value.response.markdown);
    expect(text).toMatch(/^# Design report: GPT-3 175B on 1024 × NVIDIA A100/);
    expect(text).toContain('[[12]](#f-12)');
  });
});

describe('report inputs with bad values', () => {
  it('the engine names the field, and the form marks it', async () => {
    const store = createStore({ win: null });
    render(<App store={store} />);
    await store.init();
    fireEvent.input(screen.getByLabelText('Failures per GPU-hour'), { target: { value: '-1' } });
    await store.compute();
    const field = screen.getByLabelText('Failures per GPU-hour');
    await waitFor(() => expect(field.getAttribute('aria-invalid')).toBe('true'));
    expect(document.getElementById(field.getAttribute('aria-describedby')).textContent).toMatch(/failures_per_gpu_hour/);
    fireEvent.input(screen.getByLabelText('Token budget (tokens)'), { target: { value: 'lots' } });
    fireEvent.input(field, { target: { value: '' } });
    await store.compute();
    const tokens = screen.getByLabelText('Token budget (tokens)');
    await waitFor(() => expect(tokens.getAttribute('aria-invalid')).toBe('true'));
    expect(document.getElementById(tokens.getAttribute('aria-describedby')).textContent).toMatch(/token_budget/);
  });
});

describe('ReportPanel with hand-made data', () => {
  const response = {
    markdown: '# R\n',
    plan: { diagnostics: [] },
    report: {
      title: 'Design report: <img src=x onerror=alert(1)>', summary: 'S',
      sections: [{ id: 'reliability', title: 'Checkpoints', text: '**Not feasible** unless `report.restart_s` is set; see [[2]](#f-2).',
        figures: [{ key: 'goodput', label: 'goodput', value: 0.9, unit: 'fraction', formula: 2 },
          { key: 'nodes', label: 'nodes', value: 128, unit: '', formula: 0, note: 'given' }] }],
      formulas: [{ number: 2, name: 'Goodput', expression: 'τ/(τ+δ)', source: 'Daly 2006' }],
      assumptions: ['A `x` assumption.'],
    },
  };

  it('renders prose markup as elements and hostile text as text', () => {
    render(<ReportPanel report={{ response }} explanation={null} />);
    expect(screen.getByRole('heading', { level: 2 }).textContent).toBe('Design report: <img src=x onerror=alert(1)>');
    expect(document.querySelector('img')).toBeNull();
    const prose = screen.getByText(/unless/);
    expect(prose.querySelector('b').textContent).toBe('Not feasible');
    expect(prose.querySelector('code').textContent).toBe('report.restart_s');
    expect(within(prose).getByRole('link', { name: 'formula 2: Goodput' }).getAttribute('href')).toBe('#formula-2');
    expect(figure('goodput').value).toBe('90.0%');
    expect(figure('goodput').link.textContent).toBe('[2]');
    expect(figure('nodes').link).toBeNull(); // an input: no formula to link
    expect(document.getElementById('formula-2').textContent).toBe('Goodput = τ/(τ+δ). Source: Daly 2006.');
  });

  it('says when the engine cannot write the report', () => {
    render(<ReportPanel report={{ error: { message: 'report.restart_s must be >= 0' } }} />);
    expect(screen.getByRole('alert').textContent).toContain('report.restart_s must be >= 0');
  });
});
