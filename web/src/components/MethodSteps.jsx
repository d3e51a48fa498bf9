// The method's worked answer (examples/gpt3-175b-1024-a100.json) for the selected plan: the hand
// calculation from the estimate's `method` block, with the engine's exact figure beside it.
import { fmtCapacity, fmtGb, fmtInt, fmtParams, fmtPct } from '../state/format.js';
import { memoryParts } from './MemoryBar.jsx';
import { namedSchedule, scheduleName } from '../state/messages.js';

export function MethodSteps({ estimate, gpus, gpusPerNode, globalBatch, gpuMemoryGb }) {
  if (!estimate || !estimate.method) return null;
  const m = estimate.method;
  const p = estimate.parallel;
  const pipe = estimate.pipeline;
  const mem = estimate.memory_gb;
  // The method budgets against the GPU's nameplate memory ("80 GB"), as the method does.
  const cap = Number.isFinite(gpuMemoryGb) && gpuMemoryGb > 0 ? gpuMemoryGb : mem.capacity;
  const tp = p.tp;
  const bubbleNum = (p.pp - 1);
  const bubbleDen = p.vpp > 1 ? `${p.vpp}·${fmtInt(pipe.microbatches)}` : fmtInt(pipe.microbatches);
  return (
    <section class="card method" aria-labelledby="method-h">
      <h2 id="method-h">The method, worked on this plan</h2>
      <ol class="steps">
        <li>
          <b>Budget.</b> 16 bytes × {fmtParams(m.params)} parameters{m.params_nominal ? '' : ' (counted)'} ={' '}
          <strong data-testid="m-states">{fmtGb(m.model_states_gb)}</strong> of model states → at least{' '}
          <strong data-testid="m-min-gpus">{m.min_gpus_per_replica} GPUs</strong> per replica ({fmtGb(cap, 0)} per GPU, as sold).
        </li>
        <li>
          <b>TP inside a node.</b> <strong>t = {tp}</strong>{tp <= gpusPerNode ? ` (≤ ${gpusPerNode} GPUs per node: NVLink)` : ` (more than the ${gpusPerNode} GPUs of a node: TP crosses the network)`}.
        </li>
        <li>
          <b>PP: the smallest p that fits.</b>{' '}
          {m.half_pp && m.half_pp.pp > 0 && m.half_pp.pp < p.pp ? (
            <span>p = {m.half_pp.pp}: {fmtGb(m.model_states_gb)} / {tp * m.half_pp.pp} ={' '}
              <strong data-testid="m-half">{fmtGb(m.half_pp.model_states_gb_per_gpu, 2)}</strong> per GPU,{' '}
              {m.half_pp.fits ? 'fits too. ' : 'does not fit. '}</span>) : null}
          <span>p = {p.pp}: <strong data-testid="m-states-gpu">{fmtGb(m.model_states_gb_per_gpu, 2)}</strong> +{' '}
            <strong data-testid="m-act">{fmtGb(m.activations_gb, 2)}</strong> activations ≈{' '}
            <strong data-testid="m-total">{fmtGb(m.total_gb, 1)}</strong> of {fmtGb(cap, 0)}: {m.fits ? 'fits' : 'does not fit'}
            {!m.fits && estimate.fits ? ' by the hand count, which leaves out ZeRO sharding and context parallelism; this plan fits with them (exact figure below)' : ''}.</span>
          <span class="exact"> Exact, fullest stage: {fmtGb(mem.total, 2)} ({memoryParts(mem).map(([k, name]) => `${name.toLowerCase()} ${fmtGb(mem[k], 2)}`).join(', ')}
            {p.zero > 0 ? `; ZeRO-${p.zero}` : ''}) of {fmtCapacity(mem.capacity)} physical: it counts the stage's own layers plus the embedding, not 16Ψ/(t·p).</span>
        </li>
        {(p.cp > 1 || p.ep > 1) ? <li><b>CP / EP.</b> CP = {p.cp}, EP = {p.ep}.</li> : null}
        <li>
          <b>The rest is DP.</b> N = {fmtInt(gpus)} / ({tp}·{p.pp}{p.cp > 1 ? `·${p.cp}` : ''}) ={' '}
          <strong data-testid="m-dp">{p.dp}</strong>; m = {fmtInt(globalBatch)} / ({p.dp}·{p.micro_batch}) ={' '}
          <strong data-testid="m-micro">{fmtInt(pipe.microbatches)}</strong> micro-batches; {namedSchedule(p)
            ? `bubble by the ${scheduleName(p.schedule)} schedule's formula ≈ `
            : `bubble (p−1)/${p.vpp > 1 ? '(v·m)' : 'm'} = ${bubbleNum}/${bubbleDen} ≈ `}<strong data-testid="m-bubble">{fmtPct(pipe.bubble_ratio)}</strong> of the compute time.
        </li>
        <li>
          <b>Distributed optimizer.</b> Sharding the 12 optimizer bytes over N (ZeRO-1) takes model states per GPU from{' '}
          {fmtGb(m.model_states_gb_per_gpu, 2)} to <strong data-testid="m-distopt">{fmtGb(m.distributed_optimizer_gb_per_gpu, 1)}</strong>,
          so fewer pipeline stages can fit (unpin PP and ZeRO to let the search try).
        </li>
      </ol>
    </section>
  );
}
