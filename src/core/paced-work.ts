// Heavy work paced by its cost while other keys are active (issue 50). One key's large reads (one
// at a time, answered in slices) and OTLP exports (one at a time, 50 spans a turn) no longer held
// the event loop in long stretches, yet the stream of them still kept both cores busy (node, the
// PostgreSQL backend, the kernel's socket copies), and another tenant's one-row read ran 3-4x slower
// beside it. Each part of such work now asks for its turn with its cost (bytes of an answer, spans
// of an export, one retrieval's ranking): while another key is active (the admission queue's notion, as for
// MAX_REQUESTS_PER_KEY_SHARED) a key's parts start no faster than `unitsPerSecond` allows, so the
// other key's requests find the cores free; a key alone only yields a turn of the event loop.
// Pure scheduling: no I/O.
import diagnostics from 'node:diagnostics_channel';
import { delay, nextTurn } from './delay.ts';

/**
 * Each turn of a key's work, for whoever subscribes (tests; nothing is built without a subscriber):
 * `{ keyId, units, paced, startsAt }`, whether its key's schedule applied (another key active) and
 * when that schedule let it start (performance.now() ms).
 */
export const pacedTurns = diagnostics.channel('episodic:paced-turn');

/** Keys whose schedule is kept; past it, schedules already due are dropped (they would not wait anyway). */
const KEPT_SCHEDULES = 1024;

export class PacedWork {
  /** When each key's next part may start (performance.now() ms), while others are active. */
  private readonly nextAt = new Map<string, number>();

  constructor(
    /** Whether a key other than this one is active now. */
    private readonly othersActive: (keyId: string) => boolean,
    /** The cost units one key's parts may use per second while another key is active (0: never paced). */
    private readonly unitsPerSecond: number,
  ) {}

  /**
   * Waits until `keyId` may start a part costing `units`. A key alone (or no key, or no rate) only
   * waits for `yieldTurn` (what the door lets other I/O run with: a turn of the event loop by default).
   */
  async turn(keyId: string | undefined, units: number, yieldTurn: () => Promise<void> = nextTurn): Promise<void> {
    if (!keyId || this.unitsPerSecond <= 0 || !this.othersActive(keyId)) {
      if (keyId) this.nextAt.delete(keyId);
      if (keyId && pacedTurns.hasSubscribers) pacedTurns.publish({ keyId, units, paced: false, startsAt: performance.now() });
      return yieldTurn();
    }
    const now = performance.now();
    const at = Math.max(now, this.nextAt.get(keyId) ?? now);
    if (this.nextAt.size >= KEPT_SCHEDULES) for (const [key, due] of this.nextAt) if (due <= now) this.nextAt.delete(key);
    this.nextAt.set(keyId, at + (units / this.unitsPerSecond) * 1000);
    if (pacedTurns.hasSubscribers) pacedTurns.publish({ keyId, units, paced: true, startsAt: at });
    // A part that is due at once still lets the other key's waiting I/O run first.
    if (at - now < 1) return yieldTurn();
    await delay(at - now);
  }
}
