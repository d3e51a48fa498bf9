// The pipeline timeline draws the engine's schedule (the `schedule` command) and nothing of its
// own: hand-made answers in the engine's shape, and what the picture says about them.
import { cleanup, render, screen } from '@testing-library/preact';
import { afterEach, describe, expect, it } from 'vitest';
import { PipelineTimeline, passesOf } from '../../src/components/PipelineTimeline.jsx';

afterEach(cleanup);

// p = 2, m = 2, 1F1B worked by hand: stage 0 F0 [0,1] F1 [1,2] B0 [4,6] B1 [7,9]; stage 1 F0 [1,2]
// B0 [2,4] F1 [4,5] B1 [5,7]. Makespan 3·(m + p − 1) = 9, idle 1 − 6/9 = 1/3 of the step.
const op = (stage, kind, microbatch, start, end, chunk = 0) => ({ stage, kind, microbatch, chunk, start, end });
const OPS = [op(0, 'F', 0, 0, 1), op(0, 'F', 1, 1, 2), op(1, 'F', 0, 1, 2), op(1, 'B', 0, 2, 4),
  op(1, 'F', 1, 4, 5), op(0, 'B', 0, 4, 6), op(1, 'B', 1, 5, 7), op(0, 'B', 1, 7, 9)];
/** Passes in the engine's columns (api.cpp schedule_json), times in ticks of `tick` forwards. */
const columns = (ops, tick = 1) => ({
  count: ops.length, stage: ops.map((o) => o.stage), kind: ops.map((o) => o.kind).join(''),
  microbatch: ops.map((o) => o.microbatch), chunk: ops.map((o) => o.chunk),
  start_ticks: ops.map((o) => o.start / tick), end_ticks: ops.map((o) => o.end / tick),
});
const answer = ({ ops = OPS, ...over } = {}) => ({ response: { schedule: {
  drawn: true, pp: 2, vpp: 1, microbatches: 2, total_passes: 8, makespan_units: 9, ideal_units: 6,
  idle_share: 1 / 3, bubble_over_ideal: 0.5, complete: true, shown_until_units: 9, units_per_tick: 1, ops: columns(ops), ...over } } });
const parallel = { tp: 1, pp: 2, vpp: 1, dp: 1 };
const pipeline = { microbatches: 2, bubble_ratio: 0.5, bubble_fraction: 1 / 3 };

describe('PipelineTimeline', () => {
  it('reads the engine\'s columns: ticks of 1/v forward', () => {
    // v = 2: a chunk's forward is 1 tick = 0.5 forward, its backward 2 ticks = 1 forward.
    const ops = passesOf({ units_per_tick: 0.5, ops: { stage: [0, 1], kind: 'FB', microbatch: [3, 4], chunk: [1, 0], start_ticks: [2, 5], end_ticks: [3, 7] } });
    expect(ops).toEqual([{ stage: 0, kind: 'F', microbatch: 3, chunk: 1, start: 1, end: 1.5 },
      { stage: 1, kind: 'B', microbatch: 4, chunk: 0, start: 2.5, end: 3.5 }]);
    expect(passesOf({ drawn: false })).toEqual([]);
  });

  it('draws one box per pass of the engine\'s answer, at its start and length', () => {
    render(<PipelineTimeline parallel={parallel} pipeline={pipeline} schedule={answer()} />);
    const svg = screen.getByTestId('timeline');
    const boxes = svg.querySelectorAll('rect.op');
    expect(boxes).toHaveLength(8);
    // 760 wide, 58 for the labels, 4 margin: 698 px for 9 units.
    const scale = 698 / 9;
    const last = boxes[7];
    expect(Number(last.getAttribute('x'))).toBeCloseTo(58 + 7 * scale, 6);
    expect(Number(last.getAttribute('width'))).toBeCloseTo(2 * scale - 0.4, 6);
    expect(last.getAttribute('class')).toContain('bwd');
    expect(boxes[0].getAttribute('class')).toContain('fwd');
    expect(last.querySelector('title').textContent).toBe('stage 0: backward micro-batch 1');
    expect(svg.getAttribute('aria-label')).toContain('idle 33.3% of the step');
    expect(screen.getByTestId('timeline-idle').textContent).toContain('50.0% of the ideal time');
  });

  it('labels the bubble over the ideal time and its share of the step each as what it is', () => {
    render(<PipelineTimeline parallel={{ ...parallel, pp: 8, vpp: 2 }} pipeline={{ microbatches: 16, bubble_ratio: 7 / 32, bubble_fraction: 7 / 39 }} schedule={null} />);
    const line = screen.getByTestId('bubble-line').textContent;
    expect(line).toContain('21.9% of the ideal compute time ((p−1)/(v·m))');
    expect(line).toContain('17.9% of the step ((p−1)/(v·m + p − 1))');
    expect(screen.getByRole('status').textContent).toContain('Drawing the schedule');
  });

  it('says why there is no picture when the engine finds the schedule too large', () => {
    render(<PipelineTimeline parallel={parallel} pipeline={pipeline}
                             schedule={{ response: { schedule: { drawn: false, pp: 2, vpp: 1, microbatches: 2,
                               reason: 'too large to draw: p = 2, v = 1, m = 2 make 2·p·v·m passes, more than 2000000' } } }} />);
    expect(screen.getByTestId('timeline-not-drawn').textContent).toMatch(/^No timeline: too large to draw/);
    expect(screen.queryByTestId('timeline')).toBeNull();
  });

  it('names a schedule it does not draw and says why in the engine\'s words (DualPipe)', () => {
    const dual = { tp: 1, pp: 16, vpp: 1, dp: 128, schedule: 'dualpipe' };
    const pipe = { microbatches: 120, bubble_ratio: 0.0727, bubble_fraction: 0.0678, schedule: 'dualpipe' };
    render(<PipelineTimeline parallel={dual} pipeline={pipe}
                             schedule={{ response: { schedule: { drawn: false, schedule: 'dualpipe', pp: 16, vpp: 1, microbatches: 120,
                               reason: 'the timeline draws 1F1B and interleaved 1F1B; the dualpipe schedule is priced by its bubble formula: 6.8% of the step idles' } } }} />);
    expect(screen.getByRole('heading').textContent).toBe('Pipeline schedule: DualPipe, p = 16, m = 120');
    expect(screen.getByTestId('timeline-not-drawn').textContent)
      .toBe('No timeline: the timeline draws 1F1B and interleaved 1F1B; the dualpipe schedule is priced by its bubble formula: 6.8% of the step idles.');
    // Not 1F1B's (p−1)/m: the engine's figure, by the schedule's own formula.
    const line = screen.getByTestId('bubble-line').textContent;
    expect(line).toContain('6.8% of the step, by the DualPipe schedule\'s bubble formula');
    expect(line).not.toContain('(p−1)');
    expect(screen.queryByTestId('timeline')).toBeNull();
  });

  it('does not draw an answer for another schedule at the same p, v and m', () => {
    render(<PipelineTimeline parallel={{ ...parallel, schedule: 'zb-h1' }} pipeline={pipeline} schedule={answer({ schedule: '1f1b' })} />);
    expect(screen.queryByTestId('timeline')).toBeNull();
    expect(screen.getByRole('status').textContent).toContain('Drawing the schedule');
  });

  it('does not draw an answer for another plan', () => {
    render(<PipelineTimeline parallel={{ ...parallel, pp: 4 }} pipeline={pipeline} schedule={answer()} />);
    expect(screen.queryByTestId('timeline')).toBeNull();
  });

  it('draws many passes as two paths and says when only the start of the step is shown', () => {
    const many = [];
    for (let i = 0; i < 700; i++) many.push(op(i % 2, i % 3 ? 'F' : 'B', i, i, i + 1));
    render(<PipelineTimeline parallel={parallel} pipeline={pipeline}
                             schedule={answer({ ops: many, total_passes: 40000, complete: false, makespan_units: 2800, shown_until_units: 700 })} />);
    expect(screen.getByTestId('timeline').querySelectorAll('rect.op')).toHaveLength(0);
    const fwd = screen.getByTestId('timeline-fwd').getAttribute('d');
    const bwd = screen.getByTestId('timeline-bwd').getAttribute('d');
    expect(fwd.split('M').length - 1 + bwd.split('M').length - 1).toBe(700);
    expect(screen.getByText(/Too many passes to draw \(40,000\): the first 25% of the step is shown/)).toBeTruthy();
  });

  it('without a pipeline there is nothing to draw', () => {
    render(<PipelineTimeline parallel={{ ...parallel, pp: 1 }} pipeline={pipeline} schedule={null} />);
    expect(screen.getByText(/No pipeline parallelism/)).toBeTruthy();
  });
});
