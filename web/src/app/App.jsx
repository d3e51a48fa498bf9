// Layout only: reads the store, lays out the components, forwards user actions. The answer comes
// first (scenario line, recommended plan, its key numbers, the 30-second answer), then the
// pictures of the whole search, then the method and the breakdowns.
import { useEffect } from 'preact/hooks';
import { Banner } from '../components/Banner.jsx';
import { Diagnostics } from '../components/Diagnostics.jsx';
import { Explanation } from '../components/Explanation.jsx';
import { MemoryBar } from '../components/MemoryBar.jsx';
import { NothingFits } from '../components/NothingFits.jsx';
import { PlanSummary, layoutText, settingsText } from '../components/PlanSummary.jsx';
import { PlansTable } from '../components/PlansTable.jsx';
import { SharePanel } from '../components/SharePanel.jsx';
import { TimeBreakdown } from '../components/TimeBreakdown.jsx';
import { plansToMarkdown } from '../state/markdown.js';
import { fmtCapacity, fmtGb, fmtSeconds, fmtShare, groupDigits } from '../state/format.js';
import { humanError, plural } from '../state/messages.js';
import { UNPINNED, isPinned, specToState, typed, withDefault as or } from '../state/scenario.js';
import { calibrate as calibrateScenario } from '../engine/index.js';
import { lazyComponent } from './lazy.js';

// Not needed for the first plan: their own chunks, loaded when first shown.
const waiting = (text) => () => <p class="sub" role="status">{text}</p>;
const Gallery = lazyComponent(() => import('../components/Gallery.jsx').then((m) => m.Gallery), waiting('Loading the worked examples…'));
const LaunchPanel = lazyComponent(() => import('../components/LaunchPanel.jsx').then((m) => m.LaunchPanel), waiting('Loading…'));
// The inputs come right after the first plan (store.ready): the answer is what a visitor reads
// first, and on two cores the form's render would delay it.
const ScenarioForm = lazyComponent(() => import('../components/ScenarioForm.jsx').then((m) => m.ScenarioForm), waiting('Loading the inputs…'));
const CalibratePanel = lazyComponent(() => import('../components/CalibratePanel.jsx').then((m) => m.CalibratePanel), waiting('Loading…'));
const ReportPanel = lazyComponent(() => import('../components/ReportPanel.jsx').then((m) => m.ReportPanel), waiting('Writing the report…'));
const ScatterPlot = lazyComponent(() => import('../components/ScatterPlot.jsx').then((m) => m.ScatterPlot));
const ScalingChart = lazyComponent(() => import('../components/ScalingChart.jsx').then((m) => m.ScalingChart));
const MethodSteps = lazyComponent(() => import('../components/MethodSteps.jsx').then((m) => m.MethodSteps));
const LayoutPicture = lazyComponent(() => import('../components/LayoutPicture.jsx').then((m) => m.LayoutPicture));
const PipelineTimeline = lazyComponent(() => import('../components/PipelineTimeline.jsx').then((m) => m.PipelineTimeline));

const TAB_LABELS = [['plan', 'Planner'], ['examples', 'Worked examples'], ['launch', 'Launch'], ['report', 'Design report'], ['calibrate', 'Calibrate']];
const PUSH = { history: 'push' };


function modelSpecOf(state, presets) {
  const model = or(state, 'model');
  return typeof model === 'string' ? presets && presets.models[model] : model;
}

function scenarioTitle(state, presets) {
  const model = or(state, 'model');
  const gpu = or(state, 'gpu');
  const modelName = typeof model === 'string' ? (presets && presets.models[model] ? presets.models[model].name : model) : model.name || 'custom model';
  const gpuName = typeof gpu === 'string' ? (presets && presets.gpus[gpu] ? presets.gpus[gpu].name : gpu) : gpu.name || 'custom GPU';
  return `${modelName} on ${groupDigits(Number(typed(or(state, 'gpus'))))} × ${gpuName}`;
}

/** Sequence length, batch and precision: what the title leaves out. */
function trainingLine(state) {
  const seq = typed(or(state, 'seq'));
  const gbs = typed(or(state, 'gbs'));
  return `sequence ${typeof seq === 'number' ? groupDigits(seq) : seq} · batch ${typeof gbs === 'number' ? groupDigits(gbs) : gbs} sequences · ${(state.prec || 'bf16').toUpperCase()}`;
}

function gpuMemoryGb(state, presets) {
  const gpu = or(state, 'gpu');
  const spec = typeof gpu === 'string' ? presets && presets.gpus[gpu] : gpu;
  return spec ? Number(spec.memory_gb) : NaN;
}

/** The engine's explanation of the selected plan (the search's own for the best plan). */
function selectedExplanation(store) {
  const sel = Number(store.state.value.sel) || 0;
  const response = store.result.value;
  return store.explanations.value[sel] || (sel === 0 && response ? response.explanation : null);
}

/** What the live region says when a new plan arrives. */
function announcement(response, sel) {
  if (!response) return '';
  const e = response.plans[sel];
  if (!e) return 'No configuration fits.';
  const mfu = fmtShare(e.mfu);
  const time = e.step_time_s > 0 ? `; ${fmtSeconds(e.step_time_s)} per step` : '; not timed';
  return `${sel === 0 ? 'Recommended plan' : `Plan ${sel + 1}`}: ${layoutText(e.parallel)}; ${fmtGb(e.memory_gb.total)} per GPU of ${fmtCapacity(e.memory_gb.capacity)}${time}${mfu ? `; MFU ${mfu}` : ''}.`;
}

/** The MoE caveat: a low MFU or a large bubble is what this model's answer looks like, not a bug. */
export function MoeCaveat({ estimate, modelSpec }) {
  if (!estimate || !modelSpec || !modelSpec.moe || !(Number(modelSpec.moe.experts) > 0)) return null;
  const low = estimate.mfu < 0.25;
  const bubbly = estimate.pipeline.bubble_fraction > 0.25;
  if (!low && !bubbly) return null;
  // The engine says what hides the all-to-all (DualPipe's paired passes, Megatron's combined 1F1B).
  const overlapped = Boolean(estimate.ep_comm_overlap) && estimate.ep_comm_overlap !== 'none';
  return (
    <p class="notice caveat" data-testid="moe-caveat">
      Mixture of experts: MFU counts only the FLOPs of the experts each token visits{overlapped ? '. ' : (
        <>, and this estimate charges the expert all-to-all{bubbly ? ' and the pipeline bubble' : ''} in full, with no overlap of
          communication and compute (pin the DualPipe schedule, or turn on the EP all-to-all overlap, to price it hidden). </>)}
      {low ? 'A low MFU is expected; ' : ''}compare plans by step time and tokens per second.
    </p>
  );
}

/**
 * What the search says about its own answer (issue #12): capped (the best of what was searched,
 * and why), a plan over the memory headroom, a simpler plan preferred over a faster one.
 */
export function SearchNotices({ search, shown, rank }) {
  if (!search) return null;
  const headroom = shown && shown.training && Number.isFinite(shown.training.memory_headroom) ? shown.training.memory_headroom : null;
  const tolerance = Number.isFinite(search.tie_tolerance) ? search.tie_tolerance : null;
  return (
    <>
      {search.capped ? (
        <p class="notice caveat" data-testid="search-capped">
          The search was capped: this is the best plan of the configurations it searched, not necessarily the best there is.
          {search.capped_reason ? ` ${search.capped_reason}` : ''}
        </p>) : null}
      {search.within_headroom === false ? (
        <p class="notice caveat" data-testid="search-headroom">
          No plan fits within the usable share of memory{headroom !== null ? ` (${fmtShare(1 - headroom, 0) || ''} of HBM; ${fmtShare(headroom, 0) || ''} kept free)` : ''}:
          the plans shown fit only the physical memory, leaving less than the headroom free for allocator fragmentation and spikes.
        </p>) : null}
      {search.fastest && rank === 0 ? (
        <p class="sub" data-testid="search-fastest">
          A simpler plan was preferred over the fastest one ({layoutText(search.fastest)}, {settingsText(search.fastest)}), which is
          faster by less than the tie tolerance{tolerance !== null ? ` of ${fmtShare(tolerance, 0) || `${tolerance * 100}%`}` : ''} of the step time.
        </p>) : null}
    </>
  );
}

/** Moves focus to an element without touching the URL fragment (the fragment holds the state). */
function focusById(id, event) {
  const target = typeof document !== 'undefined' && document.getElementById(id);
  if (!target) return;
  if (event) event.preventDefault();
  if (target.scrollIntoView) target.scrollIntoView({ block: 'start' });
  target.focus({ preventScroll: true });
}

function Results({ store, compact }) {
  const response = store.result.value;
  const error = store.error.value;
  const state = store.state.value;
  const presets = store.presets.value;
  if (!response) {
    return error ? (
      <div class="notice" role="alert" data-testid="input-error">{humanError(error).text}
        <details class="code-details"><summary>Details</summary><code>{humanError(error).details}</code></details></div>)
      : <p class="loading" role="status">Loading the engine…</p>;
  }
  const plans = response.plans;
  const sel = Math.min(Number(state.sel) || 0, Math.max(0, plans.length - 1));
  const estimate = plans[sel];
  const stale = Boolean(error) || store.busy.value;
  const gpus = Number(typed(or(state, 'gpus')));
  // The engine's figure: an empty field takes the GPU preset's system.
  const gpn = estimate && estimate.cluster ? estimate.cluster.gpus_per_node : Number(typed(or(state, 'gpn')));
  const explanation = store.explanations.value[sel] || (sel === 0 ? response.explanation : null);
  const closest = !plans.length && response.nearest_infeasible && response.nearest_infeasible[0];
  const inputError = error ? humanError(error) : null;
  const fix = (patch) => store.update(patch, PUSH);
  return (
    <div class={`results${stale ? ' stale' : ''}`} aria-busy={store.busy.value ? 'true' : 'false'}>
      {inputError ? (
        <div class="notice" role="alert" data-testid="input-error">{inputError.text} Showing the last valid result.
          <details class="code-details"><summary>Details</summary><code>{inputError.details}</code></details></div>
      ) : null}
      {estimate ? (
        <PlanSummary estimate={estimate} rank={sel} answer={explanation ? explanation.thirty_second_answer : null} />
      ) : null}
      {!plans.length ? <NothingFits response={response} state={state} onFix={fix} /> : null}
      {/* The first paint is the answer alone; the rest follows a frame later (store.ready). */}
      {store.ready.value ? details() : null}
    </div>
  );

  // A function called in place, not a component: a component defined here would be a new type
  // on every render and remount everything below it.
  function details() {
    return (
    <>
      <MoeCaveat estimate={estimate} modelSpec={modelSpecOf(state, presets)} />
      {closest ? (
        <>
          <PlanSummary estimate={closest} rank={0} answer={response.explanation ? response.explanation.thirty_second_answer : null} />
          <PlansTable plans={response.nearest_infeasible} selected={-1} onSelect={() => {}} compact
                      caption="Closest configurations (none fits)" />
          <Diagnostics diagnostics={closest.diagnostics} hasPlans title="Why the closest one fails" />
          <MemoryBar memory={closest.memory_gb} />
        </>
      ) : null}
      {estimate ? (
        <>
          <PlansTable plans={plans} selected={sel} onSelect={(i) => store.update({ sel: String(i) }, PUSH)} compact={compact} />
          <p class="sub search-stats">{store.busy.value ? 'Searching…' : (
            <>{plural(response.search.configs_evaluated, 'configuration')} evaluated,{' '}
              {response.search.configs_pruned ? `${groupDigits(response.search.configs_pruned)} ruled out by a step-time floor, ` : ''}
              {groupDigits(response.search.feasible)} feasible{response.search.capped ? ' (search capped)' : ''}.</>)}</p>
          <SearchNotices search={response.search} shown={estimate} rank={sel} />
          <Diagnostics diagnostics={estimate.diagnostics} hasPlans />
          {!compact ? (
            <>
              <ScatterPlot landscape={store.landscape.value} selectedRank={sel}
                           stale={!store.landscape.value || store.landscape.value.key !== store.resultKey.value}
                           pinned={isPinned(state)} onUnpinAll={() => fix(UNPINNED)}
                           onSelect={(i) => store.update({ sel: String(i) }, PUSH)}
                           onPin={(p) => fix({ tp: String(p.tp), pp: String(p.pp), dp: String(p.dp), cp: String(p.cp), ep: String(p.ep),
                             etp: p.etp === undefined ? '' : String(p.etp),
                             rcl: p.recompute_layers ? String(p.recompute_layers) : '',
                             ofl: p.offload_layers ? String(p.offload_layers) : '',
                             fsl: p.first_stage_layers ? String(p.first_stage_layers) : '',
                             lsl: p.last_stage_layers ? String(p.last_stage_layers) : '',
                             vpp: String(p.vpp), sched: p.pp > 1 && p.schedule ? p.schedule : '', mbs: String(p.micro_batch), sp: String(p.sequence_parallel), rc: p.recompute, zero: String(p.zero) })} />
              <ScalingChart scaling={store.scaling.value} currentGpus={gpus} onUseGpus={(n) => fix({ gpus: String(n) })}
                            stale={!store.scaling.value || store.scaling.value.key !== store.resultKey.value} />
            </>
          ) : null}
          <MethodSteps estimate={estimate} gpus={gpus} gpusPerNode={gpn} globalBatch={Number(typed(or(state, 'gbs')))}
                       gpuMemoryGb={gpuMemoryGb(state, presets)} />
          <MemoryBar memory={estimate.memory_gb} />
          {!compact ? (
            <>
              <TimeBreakdown estimate={estimate} />
              <LayoutPicture layout={store.layout.value} />
              <PipelineTimeline parallel={estimate.parallel} pipeline={estimate.pipeline} schedule={store.schedule.value} />
              <Explanation explanation={explanation} forPlan={store.explanations.value[sel] ? sel : 0} />
            </>
          ) : null}
        </>
      ) : null}
      {!plans.length && response.explanation ? <Explanation explanation={response.explanation} /> : null}
    </>
    );
  }
}

export function App({ store }) {
  const state = store.state.value;
  const presets = store.presets.value;
  const title = scenarioTitle(state, presets);
  const response = store.result.value;
  const sel = Number(state.sel) || 0;
  const markdown = () => plansToMarkdown(response ? response.plans : [], `${title} · ${trainingLine(state)}`);
  const focusTick = store.focusMain.value;

  useEffect(() => {
    if (typeof document !== 'undefined') document.title = `${title} — pplan`;
  }, [title]);
  useEffect(() => {
    if (!focusTick || typeof window === 'undefined') return;
    window.scrollTo(0, 0);
    focusById('main');
  }, [focusTick]);

  if (store.embed) {
    return (
      <div class="embed">
        <header class="embed-head">
          <h1><span class="brand">pplan</span> {title}</h1>
          <a href={store.shareUrl()} target="_blank" rel="noopener noreferrer">Open in pplan ↗</a>
          <p class="sub embed-training" data-testid="embed-training">{trainingLine(state)}</p>
        </header>
        <Banner warning={store.banner.value} onDismiss={store.dismissBanner} />
        <Results store={store} compact />
      </div>
    );
  }

  const planner = state.tab !== 'examples';
  const shown = response && response.plans[Math.min(sel, Math.max(0, response.plans.length - 1))];
  return (
    <div class="page">
      <a class="skip" href="#main" onClick={(e) => focusById('main', e)}>Skip to results</a>
      <header class="top">
        <h1><span class="brand">pplan</span> <span class="tagline">how to split LLM training across GPUs</span></h1>
        <SharePanel shareUrl={store.shareUrl()} embedUrl={store.embedUrl} markdown={markdown}
                    scenarioJson={() => `${JSON.stringify(store.scenario.value, null, 2)}\n`} />
      </header>
      <Banner warning={store.banner.value} onDismiss={store.dismissBanner} />
      <nav class="tabs" aria-label="Views">
        {TAB_LABELS.map(([id, label]) => (
          <button key={id} type="button" class={state.tab === id ? 'on' : ''} aria-current={state.tab === id ? 'page' : undefined}
                  onClick={() => store.update({ tab: id }, PUSH)}>{label}</button>
        ))}
      </nav>
      <p class="offscreen" role="status" aria-live="polite" data-testid="live-plan">{planner ? announcement(response, Math.min(sel, response ? Math.max(0, response.plans.length - 1) : 0)) : ''}</p>
      {!planner ? (
        <main id="main" tabIndex={-1}><Gallery results={store.gallery.value} onLoad={store.loadExample} /></main>
      ) : (
        <div class="columns">
          <div class="mobile-bar" data-testid="mobile-bar">
            <span class="mobile-plan">{shown ? `${layoutText(shown.parallel)} · ${shown.fits && shown.step_time_s > 0 ? fmtSeconds(shown.step_time_s) : 'does not fit'}` : 'No plan yet'}</span>
            <a href="#inputs" class="edit-inputs" onClick={(e) => focusById('f-model', e)}>Edit inputs</a>
          </div>
          <aside class="inputs" id="inputs" aria-label="Inputs">
            {store.ready.value
              ? <ScenarioForm state={state} presets={presets} errors={store.fieldErrors.value} onChange={store.update}
                              pinsDropped={store.pinsDropped.value} />
              : <p class="sub" role="status">Loading the inputs…</p>}
          </aside>
          <main id="main" class="outputs" tabIndex={-1}>
            <p class="scenario-title"><span data-testid="scenario-title">{title}</span> <span class="muted">· {trainingLine(state)}</span></p>
            {state.tab === 'launch'
              ? <LaunchPanel format={state.fmt} onFormat={(fmt) => store.update({ fmt }, PUSH)} launch={store.launch.value}
                             onReprice={(fw) => store.update({ fw }, PUSH)} onFix={(patch) => store.update(patch, PUSH)} />
              : state.tab === 'report'
                ? <ReportPanel report={store.report.value} explanation={selectedExplanation(store)} tokenBudget={state.tokens} />
                : state.tab === 'calibrate'
                  ? <CalibratePanel scenario={store.scenario.value} selectedParallel={store.selected.value ? store.selected.value.parallel : null}
                                    calibrate={calibrateScenario} onUseGpu={(gpu) => store.update({ gpu: specToState(gpu) }, PUSH)} />
                  : <Results store={store} />}
          </main>
        </div>
      )}
      <footer class="foot">
        pplan — the numbers are an analytical model (memory: Korthikanti et al. 2022; pipeline: Narayanan et al. 2021).
        Memory in GB (10⁹ bytes); a GPU sold as "80GB" holds 80 GiB = 85.9 GB. Everything runs in this page; nothing is sent anywhere.
      </footer>
    </div>
  );
}
