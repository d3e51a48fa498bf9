// The default page's prerendered first plan (vite.config.js): taken only for exactly the request
// it answers, and that request is the store's own first request, byte for byte.
import { describe, expect, it } from 'vitest';
import { planEnvelope } from '../src/engine/envelope.js';
import { prerenderedAnswer } from '../src/state/first-plan.js';
import { PRERENDERED_ID, TOP_PLANS, firstPlanRequest, wantsNearestGpus } from '../src/state/first-plan-request.js';
import { toScenario } from '../src/state/scenario.js';
import { DEFAULT_STATE, encodeHash } from '../src/state/url.js';

function pageWith(textContent) {
  document.body.innerHTML = '';
  if (textContent !== null) {
    const element = document.createElement('script');
    element.type = 'application/json';
    element.id = PRERENDERED_ID;
    element.textContent = textContent;
    document.body.append(element);
  }
  return document;
}

describe('the first plan request', () => {
  it('is the plan envelope the store sends for the default page', async () => {
    const expected = JSON.stringify(planEnvelope(toScenario(DEFAULT_STATE), TOP_PLANS, { nearestGpus: wantsNearestGpus(false) }));
    expect(await firstPlanRequest('', '')).toBe(expected);
    expect(JSON.parse(expected)).toMatchObject({ command: 'plan', top: 10, nearest_gpus: true });
  });

  it('differs for an embed and for a shared link, which the prerendered answer does not serve', async () => {
    const page = await firstPlanRequest('', '');
    expect(await firstPlanRequest('', '?embed=1')).not.toBe(page);
    const link = await encodeHash({ ...DEFAULT_STATE, gpus: '512' });
    expect(await firstPlanRequest(`#${link}`, '')).not.toBe(page);
  });
});

describe('prerenderedAnswer', () => {
  const request = '{"command":"plan"}';
  const response = '{"ok":true,"plans":[]}';

  it('answers exactly its own request', () => {
    const doc = pageWith(JSON.stringify({ request, response }));
    expect(prerenderedAnswer(doc, request)).toBe(response);
    expect(prerenderedAnswer(doc, '{"command":"plan","top":1}')).toBeNull();
  });

  it('is absent without the element, and ignores a malformed or mistyped one', () => {
    expect(prerenderedAnswer(pageWith(null), request)).toBeNull();
    expect(prerenderedAnswer(pageWith('{not json'), request)).toBeNull();
    expect(prerenderedAnswer(pageWith(JSON.stringify({ request, response: { ok: true } })), request)).toBeNull();
  });
});
