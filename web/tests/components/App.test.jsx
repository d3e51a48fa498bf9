// The whole page in jsdom with the real engine: what a user sees.
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/preact';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../src/app/App.jsx';
import { createStore } from '../../src/state/store.js';

afterEach(cleanup);

async function openPage(options = {}) {
  const store = createStore({ win: null, ...options });
  render(<App store={store} />);
  await store.init();
  await waitFor(() => expect(store.presets.value).not.toBeNull());
  // The form renders a frame after the first plan (store.ready): a loaded machine may not have
  // painted it yet when init() returns. An embed has none.
  if (!options.embed) await screen.findByRole('form', { name: 'Scenario' }, { timeout: 15000 });
  return store;
}

const method = () => screen.getByRole('region', { name: 'The method, worked on this plan' });
// Below the fold the method, the layout and the timeline load as their own chunks: wait for them.
const methodShown = () => screen.findByRole('region', { name: 'The method, worked on this plan' }, { timeout: 15000 });

describe('the page opens on the worked example', () => {
  it('shows the method with its numbers, computed by the engine', async () => {
    await openPage();
    const m = within(await methodShown());
    // the method's worked example (examples/gpt3-175b-1024-a100.json), step by step.
    expect(m.getByText('2.8 TB')).toBeTruthy();
    expect(m.getByText('35 GPUs')).toBeTruthy();
    expect(m.getByText('t = 8')).toBeTruthy();
    expect(m.getByText('87.50 GB')).toBeTruthy();
    expect(m.getByText('43.75 GB')).toBeTruthy();
    expect(m.getByText('10.27 GB')).toBeTruthy();
    expect(m.getByText('54.0 GB')).toBeTruthy();
    expect(m.getByText('16')).toBeTruthy();
    expect(m.getByText('96')).toBeTruthy();
    expect(m.getByText('7.3%')).toBeTruthy();
    expect(m.getByText('13.0 GB')).toBeTruthy();
    expect(method().textContent).toContain('does not fit');
  });

  it('shows the ranked plans, the memory bar, the layout and the 30-second answer', async () => {
    await openPage();
    const table = screen.getByRole('table', { name: /Ranked plans/ });
    expect(within(table).getAllByRole('row')).toHaveLength(2); // header + the pinned plan
    expect(screen.getByRole('img', { name: /^Memory per GPU: Weights/ })).toBeTruthy();
    expect(await screen.findByText(/One replica = 64 GPUs on 8 nodes; 16 identical replicas/, {}, { timeout: 15000 })).toBeTruthy();
    expect(await screen.findByText(/Pipeline schedule: 1F1B, p = 8, m = 96/, {}, { timeout: 15000 })).toBeTruthy();
    expect(screen.getByTestId('thirty-second').textContent).toMatch(/35 GPUs per replica/);
  });

  it('every form control has a label', async () => {
    await openPage();
    const form = screen.getByRole('form', { name: 'Scenario' });
    for (const control of form.querySelectorAll('input, select')) {
      expect(control.labels && control.labels.length, control.id).toBeGreaterThan(0);
    }
  });
});

describe('editing', () => {
  it('updates the numbers as you type', async () => {
    const store = await openPage();
    await methodShown();
    fireEvent.input(screen.getByLabelText('Global batch (sequences)'), { target: { value: '768' } });
    await waitFor(() => expect(within(method()).getByTestId('m-micro').textContent).toBe('48'));
    expect(store.state.value.gbs).toBe('768');
  });

  it('marks an invalid value on its field with the engine message', async () => {
    await openPage();
    const gpus = screen.getByLabelText('GPUs');
    fireEvent.input(gpus, { target: { value: 'lots' } });
    await waitFor(() => expect(gpus.getAttribute('aria-invalid')).toBe('true'));
    const describedBy = document.getElementById(gpus.getAttribute('aria-describedby'));
    expect(describedBy.textContent).toMatch(/\/cluster\/gpus must be an integer/);
  });

  it('searches when the pins are cleared, and lists several plans', async () => {
    await openPage();
    // Below the answer, a frame later (store.ready) and its own chunk: wait for it.
    fireEvent.click((await screen.findAllByRole('button', { name: /Unpin all/ }, { timeout: 15000 }))[0]);
    await waitFor(() => expect(within(screen.getByRole('table', { name: /Ranked plans/ })).getAllByRole('row').length).toBe(11), { timeout: 20000 });
    fireEvent.click(screen.getByRole('button', { name: 'Select plan 3' }));
    expect(screen.getByTestId('plan-summary').textContent).toMatch(/^Plan #3/);
    // The explanation follows the selection.
    await waitFor(() => expect(screen.getByRole('heading', { name: 'The 30-second answer (plan #3)' })).toBeTruthy());
  });

  it('says why nothing fits', async () => {
    await openPage();
    fireEvent.input(screen.getByLabelText('GPUs'), { target: { value: '8' } });
    fireEvent.input(screen.getByLabelText('DP (data)'), { target: { value: '' } });
    fireEvent.input(screen.getByLabelText('TP (tensor)'), { target: { value: '8' } });
    fireEvent.input(screen.getByLabelText('PP (pipeline)'), { target: { value: '1' } });
    await waitFor(() => expect(screen.getByText('No configuration fits')).toBeTruthy());
  });

  it('shows the closest configurations and why they fail', async () => {
    await openPage();
    fireEvent.change(screen.getByLabelText('GPU'), { target: { value: 'a100-40gb' } });
    fireEvent.input(screen.getByLabelText('GPUs'), { target: { value: '16' } });
    fireEvent.input(screen.getByLabelText('Global batch (sequences)'), { target: { value: '16' } });
    // Below the answer, a frame later (store.ready) and its own chunk: wait for it.
    fireEvent.click((await screen.findAllByRole('button', { name: /Unpin all/ }, { timeout: 15000 }))[0]);
    await waitFor(() => expect(screen.getByRole('table', { name: 'Closest configurations (none fits)' })).toBeTruthy(), { timeout: 20000 });
    expect(screen.getByText('Why the closest one fails')).toBeTruthy();
    expect(screen.getByText(/needs .* GB but the GPU has/)).toBeTruthy();
    expect(screen.getByText('does not fit')).toBeTruthy();
  });

  it('editing an architecture field turns the preset into a custom model', async () => {
    const store = await openPage();
    fireEvent.input(screen.getByLabelText('Layers'), { target: { value: '48' } });
    await waitFor(() => expect(typeof store.state.value.model).toBe('object'));
    expect(store.state.value.model.layers).toBe('48');
    expect(store.state.value.model.name).toBe('GPT-3 175B (edited)');
  });

  it('MoE fields turn the model into a mixture of experts, and a missing one is named', async () => {
    const store = await openPage();
    fireEvent.input(screen.getByLabelText('Experts'), { target: { value: '8' } });
    const topK = screen.getByLabelText('Experts per token (top-k)');
    await waitFor(() => expect(topK.getAttribute('aria-invalid')).toBe('true'));
    expect(document.getElementById(topK.getAttribute('aria-describedby')).textContent).toMatch(/top_k/);
    fireEvent.input(topK, { target: { value: '2' } });
    fireEvent.input(screen.getByLabelText('Expert FFN hidden'), { target: { value: '49152' } });
    await waitFor(() => expect(topK.getAttribute('aria-invalid')).toBeNull());
    expect(store.scenario.value.model.moe).toMatchObject({ experts: 8, top_k: 2, expert_ffn_hidden: 49152 });
  });

  it('the FP8 SwiGLU input switch on a GeLU model: the engine\'s refusal beside the control, its section opened', async () => {
    const store = await openPage();
    const control = await screen.findByLabelText('SwiGLU input stored in FP8', {}, { timeout: 15000 });
    expect(control.closest('details').open).toBe(false);
    fireEvent.change(control, { target: { value: 'true' } });
    await waitFor(() => expect(control.getAttribute('aria-invalid')).toBe('true'));
    expect(store.scenario.value.training.activation_func_fp8_input_store).toBe(true);
    const error = document.getElementById(control.getAttribute('aria-describedby')).textContent;
    expect(error).toMatch(/SwiGLU input stored in FP8 stores SwiGLU's input in FP8, but the model's activation is gelu/);
    await waitFor(() => expect(control.closest('details').open).toBe(true));
    // Set either way it is refused on this model; its default (off) is what the model runs.
    fireEvent.change(control, { target: { value: '' } });
    await waitFor(() => expect(control.getAttribute('aria-invalid')).toBeNull());
    expect('activation_func_fp8_input_store' in store.scenario.value.training).toBe(false);
  });

  it('the pipeline schedule beside VPP: a pinned DualPipe plan names its schedule; "unpin all" clears it', async () => {
    const store = await openPage();
    const select = await screen.findByLabelText('Pipeline schedule', {}, { timeout: 15000 });
    expect(select.value).toBe('');
    expect([...select.options].map((o) => o.value)).toEqual(['', '1f1b', 'interleaved', 'zb-h1', 'zb-v', 'dualpipe', 'dualpipev']);
    fireEvent.change(select, { target: { value: 'dualpipe' } });
    expect(store.scenario.value.parallel.schedule).toBe('dualpipe');
    await waitFor(() => expect(screen.getByTestId('plan-layout').textContent).toBe('TP 8 · PP 8 (DualPipe) · DP 16'), { timeout: 20000 });
    // Below the answer, a frame later (store.ready) and its own chunk: wait for it.
    fireEvent.click((await screen.findAllByRole('button', { name: /Unpin all/ }, { timeout: 15000 }))[0]);
    expect(store.state.value.sched).toBe('');
    expect('parallel' in store.scenario.value).toBe(false);
  });

  it('script-like input is shown as text, never as markup', async () => {
    const store = await openPage();
    const evil = '<img src=x onerror="window.__pwned=1">';
    fireEvent.input(screen.getByLabelText('Name', { selector: '#f-model-name' }), { target: { value: evil } });
    await waitFor(() => expect(store.state.value.model.name).toBe(evil));
    await waitFor(() => expect(document.body.textContent).toContain(evil));
    expect(document.querySelector('img')).toBeNull();
    expect(window.__pwned).toBeUndefined();
  });
});

describe('embed view', () => {
  it('is compact and links to the full page', async () => {
    await openPage({ embed: true });
    expect(screen.getByRole('link', { name: /Open in pplan/ }).getAttribute('target')).toBe('_blank');
    expect(screen.queryByRole('form', { name: 'Scenario' })).toBeNull();
    expect(await screen.findByText('35 GPUs', {}, { timeout: 15000 })).toBeTruthy();
  });
});
