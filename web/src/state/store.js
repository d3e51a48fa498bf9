// The page's state: signals for the URL state and what the engine answered, and the effects
// that keep them in step (engine requests, URL writes). Components only read these and call
// the actions; all domain rules live in the engine.
import { signal, computed } from '@preact/signals';
import * as engine from '../engine/index.js';
import { DEFAULT_STATE, SCENARIO_KEYS, decodeHash, encodeHash } from './url.js';
import { fieldForPath, fromScenario, toScenario } from './scenario.js';
import { GALLERY, exampleScenario } from '../data/gallery.js';

const TOP_PLANS = 10;
const DEBOUNCE_MS = 120;

/**
 * One store per page. `embed`: compact view that never writes its URL. `win` is the window
 * (tests pass a stub or nothing: then there is no URL to read or write).
 */
export function createStore({ embed = false, win = typeof window === 'undefined' ? null : window } = {}) {
  const state = signal({ ...DEFAULT_STATE });
  const banner = signal(null);
  const presets = signal(null);
  const result = signal(null);      // the last plan response
  const error = signal(null);       // PlannerError of the current input, or null
  const busy = signal(false);
  const launch = signal(null);      // {format, text|layout|problems} or {error}
  const report = signal(null);      // {response} or {error}: the design report of the selected plan
  const layout = signal(null);      // {response} or {error}: the engine's layout view of the selected plan
  const gallery = signal({});       // file -> best plan (or {error})
  const ready = signal(false);
  const hash = signal('');
  const explanations = signal({});  // plan index -> the engine's explanation of that plan          // the live fragment (also in embed mode, where it is not written)

  const scenario = computed(() => toScenario(state.value));
  const selected = computed(() => {
    const plans = result.value ? result.value.plans : [];
    const i = Number(state.value.sel) || 0;
    return plans[i] || plans[0] || null;
  });
  const fieldErrors = computed(() => {
    const e = error.value;
    if (!e) return {};
    const field = fieldForPath(e.path);
    return field ? { [field]: e.message } : {};
  });

  let computeSeq = 0;
  let lastKey = '';
  let timer = null;
  let lastHashWritten = null;

  async function compute() {
    const doc = scenario.value;
    const key = JSON.stringify(doc);
    if (key === lastKey) return;
    lastKey = key;
    const seq = ++computeSeq;
    busy.value = true;
    try {
      const response = await engine.plan(doc, TOP_PLANS, 'main');
      if (seq !== computeSeq) return;
      result.value = response;
      explanations.value = { 0: response.explanation };
      error.value = null;
      engine.mark('pplan:plan');
      explainSelected();
      refreshLayout();
    } catch (e) {
      if (seq !== computeSeq || (e && e.code === 'superseded')) return;
      error.value = e instanceof engine.PlannerError ? e : new engine.PlannerError('internal', String(e));
    } finally {
      if (seq === computeSeq) busy.value = false;
    }
    if (state.value.tab === 'launch') refreshLaunch();
    if (state.value.tab === 'report') refreshReport();
  }

  function schedule(delay = DEBOUNCE_MS) {
    clearTimeout(timer);
    return new Promise((resolve) => {
      timer = setTimeout(() => compute().then(resolve, resolve), delay);
    });
  }

  async function writeUrl() {
    const encoded = await encodeHash(state.value);
    hash.value = encoded;
    if (embed || !win || encoded === lastHashWritten) return;
    lastHashWritten = encoded;
    if (win.location.hash.replace(/^#/, '') !== encoded) win.history.replaceState(null, '', `#${encoded}`);
  }

  /** The explanation of the selected plan: the search explains its best; any other plan is
   * explained by asking the engine about that plan alone (all its settings pinned). */
  async function explainSelected() {
    const response = result.value;
    const i = Number(state.value.sel) || 0;
    if (!response || explanations.value[i] || !response.plans[i]) return;
    const plan = response.plans[i];
    const doc = { ...scenario.value, parallel: plan.parallel };
    try {
      const answer = await engine.plan(doc, 1, 'explain');
      if (result.value === response) explanations.value = { ...explanations.value, [i]: answer.explanation };
    } catch { /* keep showing the search's own explanation */ }
  }

  /** Launch text for the selected plan (all its settings pinned), or the scenario as it is. */
  async function refreshLaunch() {
    const fmt = state.value.fmt;
    const plan = selected.value;
    const doc = plan ? { ...scenario.value, parallel: plan.parallel } : scenario.value;
    try {
      const response = await engine.launch(doc, fmt);
      if (state.value.fmt === fmt) launch.value = { format: fmt, response };
    } catch (e) {
      if (state.value.fmt === fmt && !(e && e.code === 'superseded')) launch.value = { format: fmt, error: e };
    }
  }

  /** The design report of the selected plan (all its settings pinned), or of the scenario as it
   * is (the engine then reports the search's best, or the closest infeasible plan). */
  let reportSeq = 0;
  async function refreshReport() {
    const seq = ++reportSeq;
    const plan = selected.value;
    const doc = plan ? { ...scenario.value, parallel: plan.parallel } : scenario.value;
    try {
      const response = await engine.report(doc);
      if (seq === reportSeq) report.value = { response };
    } catch (e) {
      if (seq === reportSeq && !(e && e.code === 'superseded')) report.value = { error: e };
    }
  }

  /** The layout picture's view of the selected plan (all its settings pinned): where its ranks
   * sit is the engine's answer (layout_view), never a formula of the page's own. */
  let layoutSeq = 0;
  async function refreshLayout() {
    const seq = ++layoutSeq;
    const plan = selected.value;
    if (embed || !plan) {
      layout.value = null;
      return;
    }
    try {
      const response = await engine.layoutView({ ...scenario.value, parallel: plan.parallel });
      if (seq === layoutSeq) layout.value = { response };
    } catch (e) {
      if (seq === layoutSeq && !(e && e.code === 'superseded')) layout.value = { error: e };
    }
  }

  async function refreshGallery() {
    for (const entry of GALLERY) {
      if (gallery.value[entry.file]) continue;
      let value;
      try {
        const response = await engine.plan(exampleScenario(entry.file), 1);
        value = { plan: response.plans[0] || null };
      } catch (e) {
        value = { error: e };
      }
      gallery.value = { ...gallery.value, [entry.file]: value };
    }
  }

  /** Changes part of the state; recomputes when the scenario changed. */
  function update(patch) {
    const before = state.value;
    const next = { ...before, ...patch };
    const scenarioChanged = SCENARIO_KEYS.some((k) => next[k] !== before[k]) || next.x !== before.x;
    if (scenarioChanged && !('sel' in patch)) next.sel = '0';
    state.value = next;
    if (scenarioChanged) schedule();
    else if (next.sel !== before.sel) { explainSelected(); refreshLayout(); }
    if (next.tab === 'report' && !scenarioChanged && (next.sel !== before.sel || next.tab !== before.tab)) refreshReport();
    if (next.tab === 'launch' && (next.fmt !== before.fmt || next.tab !== before.tab)) refreshLaunch();
    if (next.tab === 'examples' && before.tab !== 'examples') refreshGallery();
    writeUrl();
  }

  function loadExample(file) {
    const doc = exampleScenario(file);
    state.value = { ...fromScenario(doc), tab: 'plan' };
    schedule(0);
    writeUrl();
  }

  async function loadHash(fragment) {
    const decoded = await decodeHash(fragment);
    banner.value = decoded.warning;
    state.value = decoded.state;
    hash.value = await encodeHash(decoded.state);
    if (decoded.state.tab === 'launch') refreshLaunch();
    if (decoded.state.tab === 'report' && result.value) refreshReport();
    if (decoded.state.tab === 'examples') refreshGallery();
  }

  /** Reads the URL, loads the engine and computes the first plan. */
  async function init() {
    await loadHash(win ? win.location.hash : '');
    if (win) { // also in embeds: a host may point the frame at another plan (reading only)
      win.addEventListener('hashchange', () => {
        if (win.location.hash.replace(/^#/, '') === lastHashWritten) return;
        loadHash(win.location.hash).then(() => schedule(0));
      });
    }
    const first = schedule(0);
    engine.presets().then((p) => { presets.value = p; }, () => {});
    await first;
    ready.value = true;
  }

  /** The page's own address (no query: embed options are the embedder's) with the live state. */
  function shareUrl() {
    const base = win ? win.location.href.split('#')[0].split('?')[0] : '';
    return `${base}#${hash.value}`;
  }

  function embedUrl() {
    const share = shareUrl();
    const [base, fragment = ''] = share.split('#');
    return `${base}?embed=1${fragment ? `#${fragment}` : ''}`;
  }

  return {
    state, banner, presets, result, hash, explanations, error, busy, launch, report, layout, gallery, ready, scenario, selected, fieldErrors,
    embed, update, loadExample, loadHash, init, compute: () => schedule(0), shareUrl, embedUrl,
    dismissBanner: () => { banner.value = null; },
  };
}
