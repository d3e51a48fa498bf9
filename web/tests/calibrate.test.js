// The Calibrate panel's layout field: "tp=4,pp=8,mb=1" as the engine's parallel fields.
import { describe, expect, it } from 'vitest';
import { parseLayout } from '../src/components/CalibratePanel.jsx';

describe('parseLayout', () => {
  it('reads numbers, booleans, text and the mb/sp short names', () => {
    expect(parseLayout('tp=4, pp=8,mb=2,sp=false,recompute=full')).toEqual(
      { tp: 4, pp: 8, micro_batch: 2, sequence_parallel: false, recompute: 'full' });
    expect(parseLayout('')).toEqual({});
  });
  it('refuses an item that is not FIELD=VALUE', () => {
    expect(() => parseLayout('tp8')).toThrow(/not FIELD=VALUE/);
  });
});
