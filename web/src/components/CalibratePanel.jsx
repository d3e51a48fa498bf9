// "Calibrate to your cluster": paste nccl-tests output and measured steps, the engine refits the
// constants they identify (`calibrate`, core/include/pplan/calibrate/fit.h), and the calibrated
// GPU goes into the scenario and the link. The pasted text stays in this panel (never in a link).
import { useState } from 'preact/hooks';
import { fmtSeconds } from '../state/format.js';
import { layoutText, settingsText } from './PlanSummary.jsx';

const EXAMPLE_STEP = 'tp=4,pp=8,dp=2,vpp=5,mb=1,zero=1';

/** "tp=4,pp=8,mb=1" -> {tp: 4, pp: 8, micro_batch: 1}; text values stay text. */
export function parseLayout(text) {
  const parallel = {};
  for (const item of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [key, value] = item.split('=').map((s) => s.trim());
    if (!key || value === undefined) throw new Error(`"${item}" is not FIELD=VALUE (e.g. tp=8)`);
    const name = key === 'mb' ? 'micro_batch' : key === 'sp' ? 'sequence_parallel' : key;
    parallel[name] = value === 'true' ? true : value === 'false' ? false : /^\d+$/.test(value) ? Number(value) : value;
  }
  return parallel;
}

const signedPct = (x) => `${x >= 0 ? '+' : '−'}${Math.abs(x * 100).toFixed(1)}%`;
const shown = (x) => (Math.abs(x) >= 100 ? x.toFixed(0) : Number(x.toPrecision(4)).toString());

const planText = (p) => `${layoutText(p)}, ${settingsText(p)}`;

function Answer({ answer, onUse }) {
  const fitted = answer.constants.filter((c) => c.fitted).length;
  return (
    <div data-testid="calibration">
      <p>{fitted} constant{fitted === 1 ? '' : 's'} fitted. The measurements' rms error:{' '}
        <b>{(100 * (Math.exp(answer.rms_log_error.before) - 1)).toFixed(1)}%</b> with the preset,{' '}
        <b data-testid="rms-after">{(100 * (Math.exp(answer.rms_log_error.after) - 1)).toFixed(1)}%</b> calibrated.</p>
      <div class="table-wrap" role="region" aria-label="Constants before and after" tabIndex={0}>
        <table class="plans" data-testid="constants">
          <thead><tr><th scope="col">Constant</th><th scope="col">Preset</th><th scope="col">Calibrated</th><th scope="col">Change</th></tr></thead>
          <tbody>{answer.constants.map((c) => (
            <tr key={c.name} class={c.fitted ? '' : 'muted'}>
              <th scope="row">{c.label} <span class="muted">({c.name}, {c.unit})</span></th>
              <td>{shown(c.before)}</td><td>{c.fitted ? shown(c.after) : 'kept'}</td>
              <td>{c.fitted && c.before ? signedPct(c.after / c.before - 1) : ''}</td>
            </tr>))}
          </tbody>
        </table>
      </div>
      <div class="table-wrap" role="region" aria-label="Measurements before and after" tabIndex={0}>
        <table class="plans" data-testid="measurements">
          <thead><tr><th scope="col">Measurement</th><th scope="col">Measured</th><th scope="col">pplan, preset</th><th scope="col">pplan, calibrated</th></tr></thead>
          <tbody>{answer.measurements.filter((m) => m.fitted).map((m, i) => (
            <tr key={i}><th scope="row">{m.what}</th><td>{shown(m.measured)} {m.unit}</td>
              <td>{shown(m.before)} {m.unit} <span class="muted">({signedPct(m.before / m.measured - 1)})</span></td>
              <td>{shown(m.after)} {m.unit} <span class="muted">({signedPct(m.after / m.measured - 1)})</span></td></tr>))}
          </tbody>
        </table>
      </div>
      {answer.notes.length ? <ul class="diagnostics">{answer.notes.map((n, i) => <li key={i} class="info">{n}</li>)}</ul> : null}
      {answer.plan_before && answer.plan_after ? (
        <p data-testid="plan-change">{answer.plan_changed
          ? <>The search now recommends <b>{planText(answer.plan_after.parallel)}</b>, {fmtSeconds(answer.plan_after.step_time_s)} per step,
            instead of {planText(answer.plan_before.parallel)}, which now takes {fmtSeconds(answer.previous_plan_step_time_s)}: it wins by {(100 * answer.wins_by).toFixed(1)}%.</>
          : <>The recommended plan stays {planText(answer.plan_after.parallel)}: {fmtSeconds(answer.plan_before.step_time_s)} per step with the preset,
            {' '}{fmtSeconds(answer.plan_after.step_time_s)} calibrated.</>}</p>
      ) : null}
      <button type="button" class="primary" data-testid="use-calibrated" onClick={() => onUse(answer.gpu)}>
        Use the calibrated GPU (it goes into the scenario and the link)</button>
    </div>
  );
}

export function CalibratePanel({ scenario, selectedParallel, calibrate, onUseGpu }) {
  const [nccl, setNccl] = useState(['']);
  const [steps, setSteps] = useState([{ layout: '', seconds: '', log: '' }]);
  const [answer, setAnswer] = useState(null);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const here = selectedParallel ? `tp=${selectedParallel.tp},pp=${selectedParallel.pp},dp=${selectedParallel.dp}${selectedParallel.cp > 1 ? `,cp=${selectedParallel.cp}` : ''}${selectedParallel.ep > 1 ? `,ep=${selectedParallel.ep}` : ''}${selectedParallel.vpp > 1 ? `,vpp=${selectedParallel.vpp}` : ''},mb=${selectedParallel.micro_batch},zero=${selectedParallel.zero},recompute=${selectedParallel.recompute}` : EXAMPLE_STEP;

  async function run() {
    setError(null);
    setAnswer(null);
    let request;
    try {
      const measured = steps.filter((s) => s.seconds.trim() || s.log.trim()).map((s, i) => {
        const step = { parallel: parseLayout(s.layout.trim() || here) };
        if (s.log.trim()) step.log = s.log;
        else {
          const seconds = Number(s.seconds.trim());
          if (!(seconds > 0)) throw new Error(`step ${i + 1}: "${s.seconds}" is not a number of seconds`);
          step.step_time_s = seconds;
        }
        return step;
      });
      request = { nccl: nccl.filter((t) => t.trim()), steps: measured };
    } catch (e) {
      setError(e.message);
      return;
    }
    setBusy(true);
    try {
      setAnswer(await calibrate(scenario, request.nccl, request.steps));
    } catch (e) {
      setError(`${e.path ? `${e.path}: ` : ''}${e.message}`);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="calibrate-h" class="calibrate">
      <h2 id="calibrate-h">Calibrate to your cluster</h2>
      <p class="sub">Paste what you measured: nccl-tests output as printed (all_reduce_perf, all_gather_perf, reduce_scatter_perf,
        alltoall_perf, sendrecv_perf; with its command line for all_gather and alltoall), and step times of this scenario's model on
        your cluster, as seconds or as a Megatron-LM, torchtitan or DeepSpeed log. pplan refits only the constants they identify and
        shows what changes. Nothing leaves this page.</p>
      {nccl.map((text, i) => (
        <label key={`n${i}`} class="block">nccl-tests run {i + 1}
          <textarea rows={6} class="paste" data-testid={`nccl-${i}`} value={text} spellcheck={false}
                    placeholder={'# nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 ...\n#  Rank  0 Group  0 Pid ... on node01 device  0 [0x18] NVIDIA H100 80GB HBM3\n...'}
                    onInput={(e) => setNccl(nccl.map((t, j) => (j === i ? e.currentTarget.value : t)))} />
        </label>))}
      <button type="button" class="link" onClick={() => setNccl([...nccl, ''])}>Add another nccl-tests run</button>
      {steps.map((s, i) => (
        <fieldset key={`s${i}`} class="step">
          <legend>Measured step {i + 1}</legend>
          <label>Layout <input type="text" data-testid={`step-layout-${i}`} value={s.layout} placeholder={here}
                               onInput={(e) => setSteps(steps.map((t, j) => (j === i ? { ...t, layout: e.currentTarget.value } : t)))} /></label>
          <label>Seconds per step <input type="text" inputMode="decimal" data-testid={`step-seconds-${i}`} value={s.seconds}
                                         onInput={(e) => setSteps(steps.map((t, j) => (j === i ? { ...t, seconds: e.currentTarget.value } : t)))} /></label>
          <label class="block">or its training log
            <textarea rows={3} class="paste" data-testid={`step-log-${i}`} value={s.log} spellcheck={false}
                      placeholder=" [2026-...] iteration  10/1000 | ... | elapsed time per iteration (ms): 6100.0 | ..."
                      onInput={(e) => setSteps(steps.map((t, j) => (j === i ? { ...t, log: e.currentTarget.value } : t)))} /></label>
        </fieldset>))}
      <button type="button" class="link" onClick={() => setSteps([...steps, { layout: '', seconds: '', log: '' }])}>Add another measured step</button>
      <p><button type="button" class="primary" data-testid="calibrate" disabled={busy} onClick={run}>{busy ? 'Fitting…' : 'Calibrate'}</button></p>
      {error ? <p class="notice" role="alert" data-testid="calibrate-error">{error}</p> : null}
      {answer ? <Answer answer={answer} onUse={onUseGpu} /> : null}
    </section>
  );
}
