// @vitest-environment node
// The worker protocol of the engine facade, with a fake worker: ordering, superseding, failures.
import { describe, expect, it } from 'vitest';
import { PlannerError, createWorkerBackend } from '../src/engine/index.js';
import { embedOptions, isEmbed } from '../src/state/embed.js';

function fakeWorker() {
  const posted = [];
  const worker = { posted, postMessage: (m) => posted.push(m), onmessage: null, onerror: null };
  worker.reply = (data) => worker.onmessage({ data });
  return worker;
}

describe('worker backend', () => {
  it('sends one request at a time, in order', async () => {
    const w = fakeWorker();
    const b = createWorkerBackend(w);
    w.reply({ type: 'ready' });
    await b.ready;
    const a = b.call('A');
    const c = b.call('C');
    expect(w.posted.map((m) => m.request)).toEqual(['A']);
    w.reply({ type: 'reply', id: w.posted[0].id, text: 'a' });
    expect(await a).toBe('a');
    expect(w.posted.map((m) => m.request)).toEqual(['A', 'C']);
    w.reply({ type: 'reply', id: w.posted[1].id, text: 'c' });
    expect(await c).toBe('c');
  });

  it('a newer request on a channel supersedes a queued older one, not the one running', async () => {
    const w = fakeWorker();
    const b = createWorkerBackend(w);
    const running = b.call('1', 'main');
    const stale = b.call('2', 'main');
    const other = b.call('x', 'launch');
    const latest = b.call('3', 'main');
    await expect(stale).rejects.toMatchObject({ code: 'superseded' });
    w.reply({ type: 'reply', id: w.posted[0].id, text: 'one' });
    expect(await running).toBe('one');
    w.reply({ type: 'reply', id: w.posted[1].id, text: 'X' });
    expect(await other).toBe('X');
    w.reply({ type: 'reply', id: w.posted[2].id, text: 'three' });
    expect(await latest).toBe('three');
    expect(w.posted.map((m) => m.request)).toEqual(['1', 'x', '3']);
  });

  it('a crash inside the worker is an internal PlannerError and the queue goes on', async () => {
    const w = fakeWorker();
    const b = createWorkerBackend(w);
    const bad = b.call('boom');
    const next = b.call('ok');
    w.reply({ type: 'reply', id: w.posted[0].id, crashed: true });
    await expect(bad).rejects.toMatchObject({ code: 'internal', message: 'engine crashed' });
    w.reply({ type: 'reply', id: w.posted[1].id, text: 'fine' });
    expect(await next).toBe('fine');
  });

  it('an engine that fails to load rejects everything, now and later', async () => {
    const w = fakeWorker();
    const b = createWorkerBackend(w);
    const pending = b.call('A');
    w.reply({ type: 'failed', message: 'no wasm' });
    await expect(b.ready).rejects.toBeInstanceOf(PlannerError);
    await expect(pending).rejects.toMatchObject({ code: 'internal' });
    await expect(b.call('B')).rejects.toMatchObject({ message: /failed to load: no wasm/ });
  });

  it('ignores replies it did not ask for', async () => {
    const w = fakeWorker();
    const b = createWorkerBackend(w);
    const a = b.call('A');
    w.reply({ type: 'reply', id: 999, text: 'forged' });
    w.reply({ type: 'reply', id: w.posted[0].id, text: 'real' });
    expect(await a).toBe('real');
  });
});

describe('embed options', () => {
  it('honours only allow-listed query keys and values', () => {
    expect(isEmbed('?embed=1')).toBe(true);
    expect(isEmbed('?embed=true')).toBe(false);
    expect(isEmbed('')).toBe(false);
    expect(embedOptions('?embed=1&theme=x&readonly=1')).toEqual({ embed: '1' });
  });
});
