// "Copy as Markdown": the ranked plans as a table for wiki pages. Pure.
import { fmtGb, fmtPct, fmtSeconds } from './format.js';

const cell = (v) => String(v).replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' ');

/** Markdown for a plan response ({plans}) and the scenario title. */
export function plansToMarkdown(plans, title = '') {
  const head = ['#', 'tp', 'pp', 'vpp', 'dp', 'cp', 'ep', 'mb', 'recompute', 'zero', 'memory/GPU', 'bubble', 'step', 'MFU'];
  const rows = plans.map((e, i) => {
    const p = e.parallel;
    return [i + 1, p.tp, p.pp, p.vpp, p.dp, p.cp, p.ep, p.micro_batch, p.recompute, p.zero,
      `${fmtGb(e.memory_gb.total)} / ${fmtGb(e.memory_gb.capacity)}`, fmtPct(e.pipeline.bubble_fraction),
      fmtSeconds(e.step_time_s), fmtPct(e.mfu)];
  });
  const lines = [];
  if (title) lines.push(`**${cell(title)}**`, '');
  lines.push(`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`);
  for (const r of rows) lines.push(`| ${r.map(cell).join(' | ')} |`);
  return lines.join('\n') + '\n';
}
