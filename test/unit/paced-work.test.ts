// Heavy work paced by its cost while other keys are active (src/core/paced-work.ts): a key alone
// only yields; beside another key its parts start no faster than the rate allows, per key.
import { describe, expect, it } from 'vitest';
import { PacedWork } from '../../src/core/paced-work.ts';

/** Runs `parts` parts of `units` each for `key` one after another: the milliseconds they took. */
async function run(paced: PacedWork, key: string, parts: number, units: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < parts; i++) await paced.turn(key, units);
  return performance.now() - started;
}

describe('PacedWork', () => {
  it('lets a key alone go as fast as it can', async () => {
    const paced = new PacedWork(() => false, 100);
    // 20 parts of 50 units at 100 a second would take 10 s if they were paced.
    expect(await run(paced, 'A', 20, 50)).toBeLessThan(500);
  });

  it('paces a key by its cost while another key is active, the first part at once', async () => {
    const paced = new PacedWork((key) => key === 'A', 1000);
    // 6 parts of 20 units at 1,000 a second: the first at once, then one every 20 ms.
    const took = await run(paced, 'A', 6, 20);
    expect(took).toBeGreaterThanOrEqual(95);
    expect(took).toBeLessThan(400);
  });

  it('keeps one schedule per key: another key is not slowed by the paced one', async () => {
    const paced = new PacedWork(() => true, 1000);
    const slow = run(paced, 'A', 10, 20);
    const other = await run(paced, 'B', 2, 1);
    expect(other).toBeLessThan(50);
    expect(await slow).toBeGreaterThanOrEqual(175);
  });

  it('forgets the schedule when the key is alone again', async () => {
    let shared = true;
    const paced = new PacedWork(() => shared, 10);
    await paced.turn('A', 100); // the next part would wait 10 s
    shared = false;
    await paced.turn('A', 100);
    shared = true;
    expect(await run(paced, 'A', 1, 100)).toBeLessThan(50);
  });

  it('yields a turn for work of no key', async () => {
    const paced = new PacedWork(() => true, 1);
    expect(await run(paced, '', 3, 1_000)).toBeLessThan(50);
  });

  it('never paces at a rate of 0 (pacing turned off)', async () => {
    const paced = new PacedWork(() => true, 0);
    expect(await run(paced, 'A', 20, 1_000)).toBeLessThan(200);
  });

  it("waits for the door's own yield when a part is due at once", async () => {
    const paced = new PacedWork(() => false, 100);
    let yielded = 0;
    await paced.turn('A', 1, async () => void yielded++);
    expect(yielded).toBe(1);
  });
});
