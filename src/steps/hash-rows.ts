// The work a hashing thread does (and the calling thread, for small batches).
import { stepContentHash, type PreparedStep } from './prepare.ts';

export interface StepHashRow {
  episodeId: string;
  step: PreparedStep;
}

export function hashStepRows(rows: StepHashRow[]): string[] {
  return rows.map((r) => stepContentHash(r.episodeId, r.step));
}
