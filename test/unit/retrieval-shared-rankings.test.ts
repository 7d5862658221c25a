// Concurrent identical rankings share one run (shared-rankings.ts) only when that run starts after
// every sharer asked: a call never gets the answer of a run that began before it arrived.
import { describe, expect, it } from 'vitest';
import { sharedRun } from '../../src/retrieval/shared-rankings.ts';

/** A run that ends when told, recording when it began (as a counter of the calls made by then). */
function gatedRuns() {
  const began: number[] = [];
  const gates: Array<() => void> = [];
  let asked = 0;
  const run = () =>
    new Promise<number>((resolve) => {
      const n = began.push(asked);
      gates.push(() => resolve(n));
    });
  const call = (scope: object, key: string) => {
    asked++;
    return sharedRun(scope, key, run);
  };
  // Two turns: a run begins on the turn after it was asked for.
  const settle = () => new Promise((r) => setImmediate(() => setImmediate(r)));
  return { began, gates, call, settle };
}

describe('sharedRun: identical calls while one runs share the next run', () => {
  it('starts the first call at once, and the next run for the calls that came meanwhile, after they came', async () => {
    const { began, gates, call, settle } = gatedRuns();
    const scope = {};
    const first = call(scope, 'k');
    await settle();
    expect(began).toEqual([1]);
    const second = call(scope, 'k');
    const third = call(scope, 'k');
    await settle();
    // The running one is not joined: the two wait for the next.
    expect(began).toEqual([1]);
    gates[0]?.();
    expect(await first).toBe(1);
    await settle();
    expect(began).toEqual([1, 3]);
    gates[1]?.();
    expect(await second).toBe(2);
    expect(await third).toBe(2);
    // Nothing running: the next call starts its own run.
    const fourth = call(scope, 'k');
    await settle();
    expect(began).toEqual([1, 3, 4]);
    gates[2]?.();
    expect(await fourth).toBe(3);
  });

  it('while another run is under way, lets the calls asked in the same turn, before the run began, share it', async () => {
    const { began, gates, call, settle } = gatedRuns();
    const scope = {};
    const other = call(scope, 'other');
    await settle();
    const answers = [call(scope, 'k'), call(scope, 'k')];
    await settle();
    expect(began).toEqual([1, 3]);
    gates[1]?.();
    expect(await Promise.all(answers)).toEqual([2, 2]);
    gates[0]?.();
    expect(await other).toBe(1);
    // Nothing running: a call begins at once (no turn), and one asked after it waits for the next run.
    const first = call(scope, 'k');
    await Promise.resolve();
    expect(began).toEqual([1, 3, 4]);
    const second = call(scope, 'k');
    gates[2]?.();
    expect(await first).toBe(3);
    await settle();
    expect(began).toEqual([1, 3, 4, 5]);
    gates[3]?.();
    expect(await second).toBe(4);
  });

  it('never shares between keys or scopes (databases)', async () => {
    const { began, gates, call, settle } = gatedRuns();
    const [a, b] = [{}, {}];
    const answers = [call(a, 'k'), call(a, 'other'), call(b, 'k')];
    await settle();
    expect(began).toHaveLength(3);
    for (const open of gates) open();
    // Three runs (in the order they began: a quiet scope's at once, the other after a turn).
    expect((await Promise.all(answers)).sort()).toEqual([1, 2, 3]);
  });

  it('gives a failed run its error and lets the next call run again', async () => {
    const scope = {};
    let runs = 0;
    const failing = () => {
      runs++;
      return Promise.reject(new Error('database away'));
    };
    await expect(sharedRun(scope, 'k', failing)).rejects.toThrow('database away');
    await expect(sharedRun(scope, 'k', async () => 'answer')).resolves.toBe('answer');
    expect(runs).toBe(1);
  });
});
