// Launch configurations for the selected scenario's plan, from the engine's `launch` command.
import { ChosenBySearch } from './ChosenBySearch.jsx';
import { CopyButton } from './CopyButton.jsx';
import { layoutText } from './PlanSummary.jsx';
import { scheduleName } from '../state/messages.js';

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

/** The framework a refusal code speaks for, by its prefix (framework/rules.cpp). */
const FRAMEWORK_OF_CODE = { megatron: 'Megatron-Core', torchtitan: 'torchtitan', deepspeed: 'DeepSpeed' };

/**
 * The one-click fixes of a launch's refusals (the engine's codes; launch never dead-ends): each
 * {id, text, buttons: [{id, label, patch | format}]}: `patch` changes the scenario (re-priced,
 * then launched again), `format` opens another launch tab. `plan`: the plan the launch is for.
 */
export function launchFixes(problems, plan) {
  const codes = new Set((problems || []).filter((p) => p && typeof p.code === 'string').map((p) => p.code));
  const p = plan && plan.parallel;
  const out = [];
  const schedule = [...codes].find((c) => c.endsWith('.schedule_unsupported'));
  if (schedule) {
    // Megatron-Core, NeMo and torchtitan run 1F1B and interleaved (the plan's chunks kept); DeepSpeed
    // 1F1B only, one chunk per rank: its virtual stages are left to the search, which then picks 1.
    const deepspeed = schedule.startsWith('deepspeed.');
    const chunked = Boolean(p && p.vpp > 1);
    const to = chunked && !deepspeed ? 'interleaved' : '1f1b';
    const patch = deepspeed && chunked ? { sched: to, vpp: '' } : { sched: to };
    const framework = FRAMEWORK_OF_CODE[schedule.split('.')[0]] || 'this framework';
    out.push({
      id: 'schedule',
      text: `The plan is priced with the ${p && p.schedule ? `${scheduleName(p.schedule)} schedule` : 'pipeline schedule it pins'}, which ${framework} does not run.`,
      buttons: [{ id: 'fix-schedule', label: `Price this plan with ${scheduleName(to)}`, patch }],
    });
  }
  // Training switches Megatron-LM has no flag for (NeMo sets them) or a framework lacks.
  for (const [key, rule, what, off] of [
    ['f8s', 'activation_fp8_store', "keep SwiGLU's input in FP8", 'Turn the FP8 SwiGLU input off'],
    ['f8a', 'fp8_attention', 'run attention in FP8', 'Run attention in BF16']]) {
    const fix = { id: `fix-${key}`, label: off, patch: { [key]: '' } };
    if (codes.has(`megatron.${rule}_no_flag`)) {
      out.push({ id: `${key}-flag`, text: `Megatron-LM has no command-line flag to ${what}; NeMo's recipe sets it.`,
        buttons: [{ id: 'fix-nemo', label: 'Launch with NeMo', format: 'nemo' }, fix] });
    }
    const lacks = ['torchtitan', 'deepspeed'].find((f) => codes.has(`${f}.${rule}`));
    if (lacks) out.push({ id: key, text: `${FRAMEWORK_OF_CODE[lacks]} does not ${what}.`, buttons: [fix] });
  }
  const fp8Params = [...codes].find((c) => c === 'torchtitan.fp8_params' || c === 'deepspeed.fp8_params' || c === 'megatron.fp8_params_need_zero');
  if (fp8Params) {
    const needsZero = fp8Params === 'megatron.fp8_params_need_zero';
    out.push({
      id: 'f8p',
      text: needsZero ? 'FP8 parameters need the distributed optimizer (ZeRO-1 or more).'
        : `${FRAMEWORK_OF_CODE[fp8Params.split('.')[0]]} does not keep the weights in FP8.`,
      buttons: [...(needsZero ? [{ id: 'fix-f8p-zero', label: 'Use the distributed optimizer (ZeRO-1)', patch: { zero: '1' } }] : []),
        { id: 'fix-f8p', label: 'Gather bf16 weights instead', patch: { f8p: 'false' } }],
    });
  }
  return out;
}

export function LaunchPanel({ format, onFormat, launch, onReprice, onFix }) {
  const current = launch && launch.format === format ? launch : null;
  const text = current && current.response ? bodyText(current.response) : '';
  const problems = current && current.response && current.response.problems;
  const warnings = current && current.response && current.response.warnings;
  const plan = current && current.response && current.response.plan;
  const p = plan && plan.parallel;
  const fixes = onFix ? launchFixes(problems, plan) : [];
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
        <p class="sub">For the plan {layoutText(p)},
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
      {fixes.map((fix) => (
        <p key={fix.id} class="notice" role="status" data-testid={`launch-fix-${fix.id}`}>{fix.text}{' '}
          {fix.buttons.map((b, i) => (
            <button key={b.id} type="button" class={i === 0 ? 'primary' : undefined} data-testid={b.id}
                    onClick={() => (b.format ? onFormat(b.format) : onFix(b.patch))}>{b.label}</button>))}
        </p>
      ))}
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
