// Memory per GPU on the fullest stage against the GPU's capacity (GB = 1e9 bytes throughout;
// the capacity also in GiB, as "80GB" parts are sold).
import { StackedBar } from './StackedBar.jsx';
import { fmtCapacity, fmtGb } from '../state/format.js';

const KNOWN = [['weights', 'Weights'], ['gradients', 'Gradients'], ['optimizer', 'Optimizer'], ['activations', 'Activations'],
  ['reserved', 'Reserved']];
// offloaded_to_host: activations in host memory (parallel.offload_layers), not on the GPU.
const NOT_PARTS = new Set(['total', 'capacity', 'peak_stage', 'offloaded_to_host']);

/** The parts of memory_gb that add up to its total: the known ones, then any the engine adds. */
export function memoryParts(memory) {
  const known = KNOWN.filter(([k]) => typeof memory[k] === 'number');
  const extra = Object.keys(memory)
    .filter((k) => typeof memory[k] === 'number' && !NOT_PARTS.has(k) && !KNOWN.some(([n]) => n === k))
    .map((k) => [k, k.replace(/_/g, ' ')]);
  return [...known, ...extra];
}

export function MemoryBar({ memory }) {
  if (!memory) return null;
  const parts = memoryParts(memory).map(([k, name]) => ({ name, value: memory[k], text: fmtGb(memory[k], 2), cls: `m-${k}` }));
  const over = memory.total > memory.capacity;
  return (
    <section class="card" aria-labelledby="mem-h">
      <h3 id="mem-h">Memory per GPU: {fmtGb(memory.total, 2)} of {fmtCapacity(memory.capacity)}{' '}
        <span class={over ? 'tag bad' : 'tag ok'}>{over ? 'does not fit' : 'fits in memory'}</span></h3>
      <StackedBar label="Memory per GPU" parts={parts} total={memory.total} limit={memory.capacity} limitLabel="capacity"
                  limitText={fmtCapacity(memory.capacity)} />
      {memory.offloaded_to_host > 0
        ? <p class="sub" data-testid="offloaded">Beside it, {fmtGb(memory.offloaded_to_host, 2)} of activations in host memory (offloaded layers).</p>
        : null}
    </section>
  );
}
