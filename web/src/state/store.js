// The page's state: signals for the URL state and what the engine answered, and the effects
// that keep them in step (engine requests, URL writes, history). Components only read these and
// call the actions; all domain rules live in the engine.
import { signal, computed } from '@preact/signals';
import * as engine from '../engine/index.js';
import { DEFAULT_STATE, SCENARIO_KEYS, decodeHash, encodeHash } from './url.js';
import { UNPINNED, fieldForPath, fromScenario, isPinned, toScenario } from './scenario.js';
import { humanError } from './messages.js';
import { TOP_PLANS, wantsNearestGpus } from './first-plan.js';

/** The worked examples (every examples/*.json): their own chunk, loaded when first used. */
const gallery = () => import('../data/gallery.js');


/**
 * One store per page. `embed`: compact view that never writes its URL. `win` is the window
 * (tests pass a stub or nothing: then there is no URL to read or write).
 */
export function createStore({ embed = false, win = typeof window === 'undefined' ? null : window } = {}) {
  const state = signal({ ...DEFAULT_STATE });
  const banner = signal(null);
  const presets = signal(null);
  const result = signal(null);      // the last plan response
  const resultKey = signal('');     // the scenario (as JSON) that response answers
  const error = signal(null);       // PlannerError of the current input, or null
  const busy = signal(false);
  const launch = signal(null);      // {format, text|layout|problems} or {error}
  const report = signal(null);      // {response} or {error}: the design report of the selected plan
  const layout = signal(null);      // {response} or {error}: the engine's layout view of the selected plan
  const pipelineSchedule = signal(null); // {response} or {error}: the engine's pipeline schedule of the selected plan
  const landscape = signal(null);   // {response, key} or {error}: the sample of the whole search
  const scaling = signal(null);     // {response, key} or {error}: the sweep over GPU counts
  const galleryResults = signal({}); // file -> best plan (or {error})
  const ready = signal(false);
  const hash = signal('');          // the live fragment (also in embed mode, where it is not written)
  const explanations = signal({});  // plan index -> the engine's explanation of that plan
  const pinsDropped = signal(false); // the last model switch cleared the parallel pins
  const focusMain = signal(0);      // bumped when an action should move focus to the results

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
    return field ? { [field]: humanError(e) } : {};
  });

  let computeSeq = 0;
  let lastKey = '';
  let timer = null;
  let lastHashWritten = null;
  let urlWrites = Promise.resolve();

  async function compute() {
    const doc = scenario.value;
    const key = JSON.stringify(doc);
    if (key === lastKey) return;
    lastKey = key;
    const seq = ++computeSeq;
    busy.value = true;
    try {
      engine.mark('pplan:plan-request');
      const response = await engine.plan(doc, TOP_PLANS, 'main', { nearestGpus: wantsNearestGpus(embed) });
      if (seq !== computeSeq) return;
      result.value = response;
      resultKey.value = key;
      explanations.value = { 0: response.explanation };
      error.value = null;
      engine.mark('pplan:plan');
      explainSelected();
      refreshLayout();
      refreshSchedule();
      refreshPictures(doc, key);
    } catch (e) {
      if (seq !== computeSeq || (e && e.code === 'superseded')) return;
      error.value = e instanceof engine.PlannerError ? e : new engine.PlannerError('internal', String(e));
    } finally {
      if (seq === computeSeq) busy.value = false;
    }
    if (state.value.tab === 'launch') refreshLaunch();
    if (state.value.tab === 'report') refreshReport();
  }

  /** Asks for the plan of the current state. No debounce: every edit asks at once; while a search
   * runs, newer requests replace the queued one (engine/index.js), so the answer shown is always
   * the latest input's, as soon as the engine can give it. */
  function schedule(delay = 0) {
    clearTimeout(timer);
    return new Promise((resolve) => {
      timer = setTimeout(() => compute().then(resolve, resolve), delay);
    });
  }

  /** Writes the state into the URL: a new history entry for discrete actions ('push'), the
   * current one while typing ('replace'). Writes run in order (encoding is async). */
  function writeUrl(mode = 'replace') {
    urlWrites = urlWrites.then(async () => {
      const encoded = await encodeHash(state.value);
      hash.value = encoded;
      if (embed || !win || encoded === lastHashWritten) return;
      lastHashWritten = encoded;
      if (win.location.hash.replace(/^#/, '') === encoded) return;
      if (mode === 'push') win.history.pushState(null, '', `#${encoded}`);
      else win.history.replaceState(null, '', `#${encoded}`);
    }).catch(() => {});
    return urlWrites;
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

  /**
   * A picture of the selected plan (all its settings pinned) drawn from the engine's answer, kept
   * in `target` as {response} or {error}; only the latest request's answer is kept. `wanted(plan)`
   * says whether the picture exists (embeds draw neither).
   */
  function selectedPlanPicture(target, ask, wanted = () => true) {
    let seq = 0;
    return async function refresh() {
      const mine = ++seq;
      const plan = selected.value;
      if (embed || !plan || !wanted(plan)) {
        target.value = null;
        return;
      }
      try {
        const response = await ask({ ...scenario.value, parallel: plan.parallel });
        if (mine === seq) target.value = { response };
      } catch (e) {
        if (mine === seq && !(e && e.code === 'superseded')) target.value = { error: e };
      }
    };
  }
  /** Where the selected plan's ranks sit: the engine's layout_view, never a formula of the page's own. */
  const refreshLayout = selectedPlanPicture(layout, engine.layoutView);
  /** Which pass each stage runs when: the engine's schedule, never a simulation of the page's own. */
  const refreshSchedule = selectedPlanPicture(pipelineSchedule, engine.schedule, (plan) => plan.parallel.pp > 1);

  /** The pictures of the whole search (landscape, scaling sweep), in their own engine so they
   * never delay the next plan; each answer is kept only while its scenario is current. */
  function refreshPictures(doc, key) {
    if (embed) return;
    // After the plan is painted: the pictures engine must not compete with the first plan.
    afterPaint(win).then(() => { if (key === lastKey) requestPictures(doc, key); });
  }

  function requestPictures(doc, key) {
    engine.landscape(doc, TOP_PLANS).then(
      (response) => { if (key === lastKey) landscape.value = { response, key }; },
      (e) => { if (key === lastKey && e.code !== 'superseded') landscape.value = { error: e, key }; });
    engine.scaling(doc).then(
      (response) => { if (key === lastKey) scaling.value = { response, key }; },
      (e) => { if (key === lastKey && e.code !== 'superseded') scaling.value = { error: e, key }; });
  }

  async function refreshGallery() {
    const { GALLERY, exampleScenario, bestWithPublishedPins } = await gallery();
    const bestPlan = async (doc) => {
      try {
        const response = await engine.plan(doc, 1);
        return { plan: response.plans[0] || null };
      } catch (e) {
        return { error: e };
      }
    };
    for (const entry of GALLERY) {
      if (galleryResults.value[entry.file]) continue;
      const doc = exampleScenario(entry.file);
      const value = { ...(await bestPlan(doc)), doc };
      if (entry.case) {
        value.bestDoc = bestWithPublishedPins(doc);
        value.best = await bestPlan(value.bestDoc);
      }
      galleryResults.value = { ...galleryResults.value, [entry.file]: value };
    }
  }

  /**
   * Changes part of the state; recomputes when the scenario changed. `history`: 'push' for a
   * discrete action (Back undoes it), 'replace' while typing. Choosing another model drops the
   * parallel pins: they were chosen for the previous model (Back brings them back).
   */
  function update(patch, { history = 'replace' } = {}) {
    const before = state.value;
    const next = { ...before, ...patch };
    const modelChanged = 'model' in patch && typeof patch.model === 'string' && patch.model !== before.model;
    const hadPins = isPinned(before);
    if (modelChanged) Object.assign(next, UNPINNED);
    pinsDropped.value = modelChanged && hadPins;
    const scenarioChanged = SCENARIO_KEYS.some((k) => next[k] !== before[k]) || next.x !== before.x;
    if (scenarioChanged && !('sel' in patch)) next.sel = '0';
    state.value = next;
    if (scenarioChanged) schedule();
    else if (next.sel !== before.sel) { explainSelected(); refreshLayout(); refreshSchedule(); }
    if (next.tab === 'report' && !scenarioChanged && (next.sel !== before.sel || next.tab !== before.tab)) refreshReport();
    if (next.tab === 'launch' && (next.fmt !== before.fmt || next.tab !== before.tab)) refreshLaunch();
    if (next.tab === 'examples' && before.tab !== 'examples') refreshGallery();
    writeUrl(history);
  }

  async function loadExample(file) {
    const doc = (await gallery()).exampleScenario(file);
    pinsDropped.value = false;
    state.value = { ...fromScenario(doc), tab: 'plan' };
    schedule(0);
    writeUrl('push');
    focusMain.value += 1;
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

  /** Back, Forward, or a link pasted into this tab: show the state the URL now holds. */
  function followUrl() {
    const fragment = win.location.hash.replace(/^#/, '');
    if (fragment === lastHashWritten) return;
    lastHashWritten = fragment;
    pinsDropped.value = false;
    loadHash(fragment).then(() => schedule(0));
  }

  /** Resolves after the browser has painted the current frame (a timer where there is no frame). */
  function afterPaint(w) {
    return new Promise((resolve) => {
      if (w && w.requestAnimationFrame) w.requestAnimationFrame(() => setTimeout(resolve, 0));
      else setTimeout(resolve, 0);
    });
  }

  /** Reads the URL, loads the engine and computes the first plan. */
  async function init() {
    await loadHash(win ? win.location.hash : '');
    if (win) { // also in embeds: a host may point the frame at another plan (reading only)
      lastHashWritten = win.location.hash.replace(/^#/, '') || null;
      win.addEventListener('popstate', followUrl);
      win.addEventListener('hashchange', followUrl);
    }
    const first = schedule(0);
    // Queued behind the first plan (its timer runs first): the preset names are not needed to show it.
    setTimeout(() => engine.presets().then((p) => { presets.value = p; }, () => {}), 0);
    await first;
    // One frame later: the first paint holds only the answer (Results renders the rest once the
    // page is ready), so a visitor reads it before the table, the pictures and the form render.
    await afterPaint(win);
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
    state, banner, presets, result, resultKey, hash, explanations, error, busy, launch, report, layout, landscape, scaling,
    schedule: pipelineSchedule,
    gallery: galleryResults, ready, scenario, selected, fieldErrors, pinsDropped, focusMain,
    embed, update, loadExample, loadHash, init, compute: () => schedule(0), shareUrl, embedUrl,
    dismissBanner: () => { banner.value = null; },
  };
}
