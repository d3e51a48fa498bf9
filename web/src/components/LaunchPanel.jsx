// Launch configurations for the selected scenario's plan, from the engine's `launch` command.
import { ChosenBySearch } from './ChosenBySearch.jsx';
import { CopyButton } from './CopyButton.jsx';

export const FORMATS = [
  ['megatron', 'Megatron-LM'], ['slurm', 'SLURM'], ['env', 'Environment'], ['torchtitan', 'torchtitan (CLI)'],
  ['torchtitan-toml', 'torchtitan (TOML)'], ['deepspeed', 'DeepSpeed'], ['nemo', 'NeMo'], ['nccl-tests', 'nccl-tests'],
  ['layout', 'Rank layout'],
];

function bodyText(response) {
  if (typeof response.text === 'string' && response.text) return response.text;
  if (response.layout !== undefined) return JSON.stringify(response.layout, null, 2);
  if (response.config !== undefined) return typeof response.config === 'string' ? response.config : JSON.stringify(response.config, null, 2);
  return '';
}

/** The framework a format launches (framework/rules.h): a refused plan is re-priced for it. */
export const FRAMEWORK_OF_FORMAT = {
  torchtitan: ['torchtitan', 'torchtitan'], 'torchtitan-toml': ['torchtitan', 'torchtitan'], deepspeed: ['deepspeed', 'DeepSpeed'],
};
const frameworkOf = (format) => FRAMEWORK_OF_FORMAT[format] || ['megatron-core', 'Megatron-Core'];

export function LaunchPanel({ format, onFormat, launch, onReprice }) {
  const current = launch && launch.format === format ? launch : null;
  const text = current && current.response ? bodyText(current.response) : '';
  const problems = current && current.response && current.response.problems;
  const warnings = current && current.response && current.response.warnings;
  const plan = current && current.response && current.response.plan;
  const p = plan && plan.parallel;
  return (
    <section aria-labelledby="launch-h">
      <h2 id="launch-h">Launch configuration</h2>
      <div class="tabs-inline" role="radiogroup" aria-label="Format">
        {FORMATS.map(([id, label]) => (
          <label key={id} class={id === format ? 'on' : ''}>
            <input type="radio" name="launch-format" value={id} checked={id === format} onChange={() => onFormat(id)} />
            {label}
          </label>
        ))}
      </div>
      {!current ? <p class="sub">Generating…</p> : null}
      {p ? (
        <p class="sub">For the plan TP {p.tp} · PP {p.pp}{p.vpp > 1 ? ` (v ${p.vpp})` : ''} · DP {p.dp}{p.cp > 1 ? ` · CP ${p.cp}` : ''}{p.ep > 1 ? ` · EP ${p.ep}` : ''},
          micro-batch {p.micro_batch}, recompute {p.recompute}, ZeRO {p.zero}: the plan selected in the Planner. Placeholders (paths, addresses) are marked in the text.</p>
      ) : null}
      {current && current.response ? <ChosenBySearch fields={current.response.chosen_by_search} /> : null}
      {current && current.error ? (
        <p class="notice" role="status">The engine cannot produce this yet: {current.error.message}</p>
      ) : null}
      {problems && problems.some((p) => p && typeof p.code === 'string' && p.code.endsWith('.priced_for_another_framework')) && onReprice ? (
        <p class="notice" role="status">The plan is priced for another framework than this format runs.{' '}
          <button type="button" class="primary" data-testid="reprice" onClick={() => onReprice(frameworkOf(format)[0])}>
            Price this plan for {frameworkOf(format)[1]}
          </button>
        </p>
      ) : null}
      {problems && problems.length ? (
        <ul class="diagnostics">{problems.map((p, i) => (
          <li key={i} class="error">
            {typeof p === 'string' ? p : p.message || JSON.stringify(p)}
            {p && p.source ? <span class="sub problem-source"> ({p.source})</span> : null}
          </li>
        ))}</ul>
      ) : null}
      {warnings && warnings.length ? (
        <ul class="diagnostics">{warnings.map((w, i) => <li key={i} class="warning">{w.message}</li>)}</ul>
      ) : null}
      {text ? (
        <>
          <CopyButton text={text} label="Copy" />
          <pre class="code" tabIndex={0} aria-label={`${format} launch text`}>{text}</pre>
        </>
      ) : null}
    </section>
  );
}
