// Identical read-only rankings of one tenant, asked while one of them is running, are answered by
// one next ranking instead of one each (a group commit for reads, issue 55). A ranking in flight
// is never joined: its statements may have read the database before the joiner arrived, and a
// write the joiner saw commit would be missing from its answer. The calls that arrive meanwhile
// wait for it to end and share the next one, which starts (its clock and every statement) after
// each of them arrived: the answer each gets is the one it would have computed alone, started a
// little later. While other runs are under way, a run begins on the event loop's next turn, and
// the calls of its key read in the same turn (requests that arrived together) join it before it
// has begun; with none (a quiet server, one client) it begins at once, costing no turn.
import { nextTurn } from '../core/delay.ts';

interface Slot {
  running: Promise<unknown>;
  /** Not begun yet: a call joins it (its clock and statements come after). */
  open: boolean;
  /** The ranking the calls that arrived while `running` ran share (it starts when `running` ends). */
  next?: Promise<unknown>;
}

interface Scope {
  slots: Map<string, Slot>;
  /** Runs begun and not ended, of every key. */
  running: number;
}

/** Per scope (a database's pool: two databases may hold one tenant id), per key. */
const scopes = new WeakMap<object, Scope>();

const ignore = () => undefined;

/**
 * `run`'s answer for this key: the run of the key about to begin, else (one is running) the next,
 * shared by every call that arrived while this one ran. `key` must name everything the answer
 * depends on (the tenant, the question, the options); the answer is shared, so nobody mutates it.
 */
export function sharedRun<T>(scope: object, key: string, run: () => Promise<T>): Promise<T> {
  let shared = scopes.get(scope);
  if (!shared) scopes.set(scope, (shared = { slots: new Map(), running: 0 }));
  const slot = shared.slots.get(key);
  if (!slot) return begin(shared, key, run);
  if (slot.open) return slot.running as Promise<T>;
  const sharing = shared;
  slot.next ??= slot.running.then(ignore, ignore).then(() => begin(sharing, key, run));
  return slot.next as Promise<T>;
}

function begin<T>(scope: Scope, key: string, run: () => Promise<T>): Promise<T> {
  const { slots } = scope;
  const slot: Slot = { running: Promise.resolve(), open: scope.running > 0 };
  scope.running++;
  const running = (slot.open ? nextTurn() : Promise.resolve()).then(() => {
    slot.open = false;
    return run();
  });
  slot.running = running;
  slots.set(key, slot);
  // Ended with nobody waiting: the key is free (a `next` replaces the slot when it begins).
  const end = () => {
    scope.running--;
    if (slots.get(key) === slot && slot.next === undefined) slots.delete(key);
  };
  running.then(end, end);
  return running;
}
