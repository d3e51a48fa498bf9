// The ranked plans; a row's button selects it.
import { fmtGb, fmtPct, fmtSeconds } from '../state/format.js';

export function PlansTable({ plans, selected, onSelect, compact, caption }) {
  if (!plans || plans.length === 0) return null;
  return (
    <div class="table-wrap" role="region" aria-label={caption || 'Ranked plans'} tabIndex={0}>
      <table class={caption ? 'plans nearest' : 'plans'}>
        <caption>{caption || `Ranked plans (best first)${compact ? '' : ' — select one to see its details'}`}</caption>
        <thead>
          <tr>
            <th scope="col">#</th><th scope="col">tp</th><th scope="col">pp</th><th scope="col">vpp</th>
            <th scope="col">dp</th><th scope="col">cp</th><th scope="col">ep</th><th scope="col">mb</th>
            <th scope="col">recompute</th><th scope="col">zero</th><th scope="col">memory/GPU</th>
            <th scope="col">bubble</th><th scope="col">step</th><th scope="col">MFU</th>
          </tr>
        </thead>
        <tbody>
          {plans.map((e, i) => {
            const p = e.parallel;
            const isSel = i === selected;
            return (
              <tr key={i} class={isSel ? 'selected' : ''} aria-selected={isSel ? 'true' : 'false'}>
                <td>{caption ? i + 1 : (
                  <button type="button" class="row-pick" aria-pressed={isSel ? 'true' : 'false'}
                          aria-label={`Select plan ${i + 1}`} onClick={() => onSelect(i)}>{i + 1}</button>)}</td>
                <td>{p.tp}</td><td>{p.pp}</td><td>{p.vpp}</td><td>{p.dp}</td><td>{p.cp}</td><td>{p.ep}</td>
                <td>{p.micro_batch}</td><td>{p.recompute}</td><td>{p.zero}</td>
                <td class={e.fits_in_memory ? '' : 'over'}>{fmtGb(e.memory_gb.total)}</td>
                <td>{fmtPct(e.pipeline.bubble_fraction)}</td><td>{fmtSeconds(e.step_time_s)}</td><td>{fmtPct(e.mfu)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
