// Memory per GPU on the fullest stage against the GPU's capacity.
import { StackedBar } from './StackedBar.jsx';
import { fmtGb } from '../state/format.js';

export function MemoryBar({ memory }) {
  if (!memory) return null;
  const parts = [['weights', 'Weights'], ['gradients', 'Gradients'], ['optimizer', 'Optimizer'], ['activations', 'Activations']]
    .map(([k, name]) => ({ name, value: memory[k], text: fmtGb(memory[k], 2), cls: `m-${k}` }));
  const over = memory.total > memory.capacity;
  return (
    <section class="card" aria-labelledby="mem-h">
      <h3 id="mem-h">Memory per GPU: {fmtGb(memory.total, 2)} of {fmtGb(memory.capacity, 0)}{' '}
        <span class={over ? 'tag bad' : 'tag ok'}>{over ? 'does not fit' : 'fits'}</span></h3>
      <StackedBar label="Memory per GPU" parts={parts} total={memory.total} limit={memory.capacity} limitLabel="capacity" unit="GB" />
    </section>
  );
}
