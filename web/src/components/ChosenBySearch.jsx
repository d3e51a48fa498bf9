// Which fields of the plan the search chose (the engine's chosen_by_search on launch, report
// and layout_view answers): the scenario left them open, so they are not defaults.
const NAMES = { micro_batch: 'micro-batch', sequence_parallel: 'sequence parallel', zero: 'ZeRO stage', vpp: 'VPP' };

export function ChosenBySearch({ fields }) {
  if (!Array.isArray(fields) || !fields.length) return null;
  const names = fields.map((f) => NAMES[f] || (typeof f === 'string' && f.length <= 3 ? f.toUpperCase() : String(f)));
  return (
    <p class="sub" data-testid="chosen-by-search">
      The search chose {names.join(', ')} (the scenario leaves {fields.length === 1 ? 'it' : 'them'} open); the rest is as pinned.
    </p>
  );
}
