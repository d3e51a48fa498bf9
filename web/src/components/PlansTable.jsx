// The ranked plans; a row's button selects it. Figures the engine got impossible are hidden
// (with the reason in the cell's title) rather than shown.
import { bubbleFigure, mfuFigure, stepFigure } from './PlanSummary.jsx';
import { epCell, fmtGb } from '../state/format.js';
import { vppCell } from '../state/markdown.js';

const COLUMNS = [
  ['#', 'rank, best first'], ['tp', 'tensor parallel: splits every layer (inside a node)'],
  ['pp', 'pipeline parallel: stages of layers'], ['vpp', 'virtual stages (model chunks) per pipeline rank, and the pipeline schedule when it is neither 1F1B nor interleaved'],
  ['dp', 'data parallel replicas'], ['cp', 'context parallel: splits the sequence'], ['ep', 'expert parallel (MoE); "etp 1" when each expert is split over fewer GPUs than TP (parallel folding)'],
  ['mb', 'micro-batch size (sequences)'], ['sp', 'sequence parallelism (splits LayerNorm and dropout activations over TP)'],
  ['recompute', 'activation recomputation'],
  ['zero', 'ZeRO stage: 1 optimizer, 2 + gradients, 3 + weights sharded over DP'],
  ['memory/GPU', 'fullest stage, GB (1e9 bytes)'], ['bubble (of step)', 'pipeline bubble, share of the step: (p−1)/(v·m + p−1); over the ideal compute time it is (p−1)/(v·m)'],
  ['step', 'time per training step'], ['MFU', 'model FLOPs utilisation'],
];

function Figure({ figure }) {
  return <td title={figure.why || undefined}>{figure.text}</td>;
}

export function PlansTable({ plans, selected, onSelect, compact, caption }) {
  if (!plans || plans.length === 0) return null;
  return (
    <div class="table-wrap" role="region" aria-label={caption || 'Ranked plans'} tabIndex={0}>
      <table class={caption ? 'plans nearest' : 'plans'}>
        <caption>{caption || `Ranked plans (best first)${compact ? '' : ' — select one to see its details'}`}
          <span class="scroll-cue" aria-hidden="true"> scroll sideways for more →</span></caption>
        <thead>
          <tr>
            {COLUMNS.map(([label, title]) => (
              <th key={label} scope="col">{title ? <abbr title={title}>{label}</abbr> : label}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {plans.map((e, i) => {
            const p = e.parallel;
            const isSel = i === selected;
            return (
              <tr key={i} class={isSel ? 'selected' : ''}>
                <td>{caption ? i + 1 : (
                  <button type="button" class="row-pick" aria-pressed={isSel ? 'true' : 'false'}
                          aria-label={`Select plan ${i + 1}`} onClick={() => onSelect(i)}>{i + 1}</button>)}</td>
                <td>{p.tp}</td><td>{p.pp}</td><td>{vppCell(p)}</td><td>{p.dp}</td><td>{p.cp}</td><td>{epCell(p)}</td>
                <td>{p.micro_batch}</td><td>{p.sequence_parallel ? 'on' : 'off'}</td><td>{p.recompute}{p.offload_layers > 0 ? ` + ${p.offload_layers} offloaded` : ''}</td><td>{p.zero}</td>
                <td class={e.fits_in_memory ? '' : 'over'}>{fmtGb(e.memory_gb.total)}</td>
                <Figure figure={bubbleFigure(e)} />
                <Figure figure={stepFigure(e)} />
                <Figure figure={mfuFigure(e)} />
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
