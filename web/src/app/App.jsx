// Layout only: reads the store, lays out the components, forwards user actions.
import { Banner } from '../components/Banner.jsx';
import { Diagnostics } from '../components/Diagnostics.jsx';
import { Explanation } from '../components/Explanation.jsx';
import { Gallery } from '../components/Gallery.jsx';
import { LaunchPanel } from '../components/LaunchPanel.jsx';
import { LayoutPicture } from '../components/LayoutPicture.jsx';
import { MemoryBar } from '../components/MemoryBar.jsx';
import { MethodSteps } from '../components/MethodSteps.jsx';
import { PipelineTimeline } from '../components/PipelineTimeline.jsx';
import { PlanSummary } from '../components/PlanSummary.jsx';
import { PlansTable } from '../components/PlansTable.jsx';
import { ReportPanel } from '../components/ReportPanel.jsx';
import { ScenarioForm } from '../components/ScenarioForm.jsx';
import { SharePanel } from '../components/SharePanel.jsx';
import { TimeBreakdown } from '../components/TimeBreakdown.jsx';
import { plansToMarkdown } from '../state/markdown.js';
import { typed } from '../state/scenario.js';

const TAB_LABELS = [['plan', 'Planner'], ['examples', 'Worked examples'], ['launch', 'Launch'], ['report', 'Design report']];

function scenarioTitle(state, presets) {
  const model = typeof state.model === 'string'
    ? (presets && presets.models[state.model] ? presets.models[state.model].name : state.model)
    : state.model.name || 'custom model';
  const gpu = typeof state.gpu === 'string'
    ? (presets && presets.gpus[state.gpu] ? presets.gpus[state.gpu].name : state.gpu)
    : state.gpu.name || 'custom GPU';
  return `${model} on ${state.gpus} × ${gpu}`;
}

function gpuMemoryGb(state, presets) {
  const spec = typeof state.gpu === 'string' ? presets && presets.gpus[state.gpu] : state.gpu;
  return spec ? Number(spec.memory_gb) : NaN;
}

/** The engine's explanation of the selected plan (the search's own for the best plan). */
function selectedExplanation(store) {
  const sel = Number(store.state.value.sel) || 0;
  const response = store.result.value;
  return store.explanations.value[sel] || (sel === 0 && response ? response.explanation : null);
}

function Results({ store, compact }) {
  const response = store.result.value;
  const error = store.error.value;
  const state = store.state.value;
  if (!response) {
    return error ? <p class="notice" role="alert">{error.message}</p>
      : <p class="loading" role="status">Loading the engine…</p>;
  }
  const plans = response.plans;
  const sel = Math.min(Number(state.sel) || 0, Math.max(0, plans.length - 1));
  const estimate = plans[sel];
  const stale = Boolean(error) || store.busy.value;
  const gpus = Number(typed(state.gpus));
  const gpn = Number(typed(state.gpn));
  return (
    <div class={`results${stale ? ' stale' : ''}`} aria-busy={store.busy.value ? 'true' : 'false'}>
      {error ? (
        <p class="notice" role="alert" data-testid="input-error">Input problem: {error.message}
          {error.path ? <> (<code>{error.path}</code>)</> : null}. Showing the last valid result.</p>
      ) : null}
      <PlanSummary estimate={estimate} rank={sel} />
      {!plans.length ? <Diagnostics search={response.search} hasPlans={false} /> : null}
      {!plans.length && response.nearest_infeasible && response.nearest_infeasible.length ? (
        <>
          <PlansTable plans={response.nearest_infeasible} selected={-1} onSelect={() => {}} compact
                      caption="Closest configurations (none fits)" />
          <Diagnostics diagnostics={response.nearest_infeasible[0].diagnostics} hasPlans title="Why the closest one fails" />
          <MemoryBar memory={response.nearest_infeasible[0].memory_gb} />
        </>
      ) : null}
      {!plans.length && response.explanation ? <Explanation explanation={response.explanation} /> : null}
      {estimate ? (
        <>
          <MethodSteps estimate={estimate} gpus={gpus} gpusPerNode={gpn} globalBatch={Number(typed(state.gbs))}
                       gpuMemoryGb={gpuMemoryGb(state, store.presets.value)} />
          <PlansTable plans={plans} selected={sel} onSelect={(i) => store.update({ sel: String(i) })} compact={compact} />
          <p class="sub search-stats" role="status">{store.busy.value ? 'Searching…' : (
            <>{response.search.configs_evaluated.toLocaleString('en-US')} configuration{response.search.configs_evaluated === 1 ? '' : 's'} evaluated,{' '}
              {response.search.feasible.toLocaleString('en-US')} feasible{response.search.capped ? ' (search capped)' : ''}.</>)}</p>
          <Diagnostics diagnostics={estimate.diagnostics} hasPlans />
          <MemoryBar memory={estimate.memory_gb} />
          {!compact ? (
            <>
              <TimeBreakdown estimate={estimate} />
              <LayoutPicture layout={store.layout.value} />
              <PipelineTimeline parallel={estimate.parallel} pipeline={estimate.pipeline} />
              <Explanation explanation={store.explanations.value[sel] || response.explanation}
                           forPlan={store.explanations.value[sel] ? sel : 0} />
            </>
          ) : null}
        </>
      ) : null}
    </div>
  );
}

export function App({ store }) {
  const state = store.state.value;
  const presets = store.presets.value;
  const title = scenarioTitle(state, presets);
  const markdown = () => plansToMarkdown(store.result.value ? store.result.value.plans : [], title);

  if (store.embed) {
    return (
      <div class="embed">
        <header class="embed-head">
          <h1><span class="brand">pplan</span> {title}</h1>
          <a href={store.shareUrl()} target="_blank" rel="noopener noreferrer">Open in pplan ↗</a>
        </header>
        <Banner warning={store.banner.value} onDismiss={store.dismissBanner} />
        <Results store={store} compact />
      </div>
    );
  }

  return (
    <div class="page">
      <a class="skip" href="#main">Skip to results</a>
      <header class="top">
        <h1><span class="brand">pplan</span> <span class="tagline">how to split LLM training across GPUs</span></h1>
        <SharePanel shareUrl={store.shareUrl()} embedUrl={store.embedUrl} markdown={markdown}
                    scenarioJson={() => `${JSON.stringify(store.scenario.value, null, 2)}\n`} />
      </header>
      <Banner warning={store.banner.value} onDismiss={store.dismissBanner} />
      <nav class="tabs" aria-label="Views">
        {TAB_LABELS.map(([id, label]) => (
          <button key={id} type="button" class={state.tab === id ? 'on' : ''} aria-current={state.tab === id ? 'page' : undefined}
                  onClick={() => store.update({ tab: id })}>{label}</button>
        ))}
      </nav>
      {state.tab === 'examples' ? (
        <main id="main"><Gallery results={store.gallery.value} onLoad={store.loadExample} /></main>
      ) : (
        <div class="columns">
          <aside class="inputs" aria-label="Inputs">
            <ScenarioForm state={state} presets={presets} errors={store.fieldErrors.value} onChange={store.update} />
          </aside>
          <main id="main" class="outputs">
            <p class="scenario-title">{title}</p>
            {state.tab === 'launch'
              ? <LaunchPanel format={state.fmt} onFormat={(fmt) => store.update({ fmt })} launch={store.launch.value} />
              : state.tab === 'report'
                ? <ReportPanel report={store.report.value} explanation={selectedExplanation(store)} />
                : <Results store={store} />}
          </main>
        </div>
      )}
      <footer class="foot">
        pplan — the numbers are an analytical model (memory: Korthikanti et al. 2022; pipeline: Narayanan et al. 2021).
        Everything runs in this page; nothing is sent anywhere.
      </footer>
    </div>
  );
}
