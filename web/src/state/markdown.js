// "Copy as Markdown": the ranked plans as a table for wiki pages. Pure.
import { epCell, fmtCapacity, fmtGb, fmtSeconds, fmtShare } from './format.js';
import { namedSchedule, scheduleName } from './messages.js';

const cell = (v) => String(v).replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' ');

/** The vpp cell: the chunks per rank, and a schedule other than 1F1B and interleaved by name ("1 DualPipe"). */
export const vppCell = (p) => (namedSchedule(p) ? `${p.vpp} ${scheduleName(p.schedule)}` : String(p.vpp));

/** Markdown for a plan response ({plans}) and the scenario title. */
export function plansToMarkdown(plans, title = '') {
  const head = ['#', 'tp', 'pp', 'vpp', 'dp', 'cp', 'ep', 'mb', 'sp', 'recompute', 'zero', 'memory/GPU', 'bubble (of step)', 'step', 'MFU'];
  const rows = plans.map((e, i) => {
    const p = e.parallel;
    const b = e.pipeline.bubble_fraction;
    return [i + 1, p.tp, p.pp, vppCell(p), p.dp, p.cp, epCell(p), p.micro_batch, p.sequence_parallel ? 'on' : 'off', p.offload_layers > 0 ? `${p.recompute} + ${p.offload_layers} offloaded` : p.recompute, p.zero,
      `${fmtGb(e.memory_gb.total)} of ${fmtCapacity(e.memory_gb.capacity)}`, (b >= 0 && b <= 1 && fmtShare(b)) || '–',
      e.step_time_s > 0 ? fmtSeconds(e.step_time_s) : '–', fmtShare(e.mfu) || '–'];
  });
  const lines = [];
  if (title) lines.push(`**${cell(title)}**`, '');
  lines.push(`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`);
  for (const r of rows) lines.push(`| ${r.map(cell).join(' | ')} |`);
  return lines.join('\n') + '\n';
}
