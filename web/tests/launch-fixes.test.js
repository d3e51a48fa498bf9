// The one-click fixes of FP8-parameter refusals (framework/rules.cpp codes): launch never dead-ends.
import { describe, expect, it } from 'vitest';
import { launchFixes } from '../src/components/LaunchPanel.jsx';

const plan = { parallel: { tp: 8, pp: 4, dp: 2, zero: 0 } };

describe('launchFixes for FP8 parameters', () => {
  it('offers the distributed optimizer where Megatron needs it, and BF16 weights', () => {
    const [fix] = launchFixes([{ code: 'megatron.fp8_params_need_zero' }], plan);
    expect(fix.id).toBe('f8p');
    expect(fix.buttons.map((b) => b.patch)).toEqual([{ zero: '1' }, { f8p: 'false' }]);
  });

  // 'false', not the default: Megatron-Core's default keeps FP8 weights with ZeRO >= 1.
  it('offers BF16 weights where the framework has no FP8 parameters', () => {
    for (const code of ['torchtitan.fp8_params', 'deepspeed.fp8_params']) {
      const [fix] = launchFixes([{ code }], plan);
      expect(fix.text).toMatch(/does not keep the weights in FP8/);
      expect(fix.buttons).toEqual([{ id: 'fix-f8p', label: 'Gather bf16 weights instead', patch: { f8p: 'false' } }]);
    }
  });
});

describe('launchFixes for FP8 attention', () => {
  it('offers NeMo where Megatron-LM has no flag, and BF16 attention everywhere', () => {
    const [flag] = launchFixes([{ code: 'megatron.fp8_attention_no_flag' }], plan);
    expect(flag.buttons.map((b) => b.format || b.patch)).toEqual(['nemo', { f8a: '' }]);
    for (const code of ['torchtitan.fp8_attention', 'deepspeed.fp8_attention']) {
      const [fix] = launchFixes([{ code }], plan);
      expect(fix.text).toMatch(/does not run attention in FP8/);
      expect(fix.buttons).toEqual([{ id: 'fix-f8a', label: 'Run attention in BF16', patch: { f8a: '' } }]);
    }
  });
});
