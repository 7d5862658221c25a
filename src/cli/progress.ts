// A one-line progress bar on stderr, drawn only when stderr is a terminal.
import type { Writable } from 'node:stream';

export interface Progress {
  update(done: number, total: number): void;
  finish(): void;
}

export function progressBar(label: string, stream: Writable & { isTTY?: boolean }): Progress {
  if (!stream.isTTY) return { update() {}, finish() {} };
  const width = 30;
  let drawn = false;
  return {
    update(done, total) {
      const filled = total ? Math.round((done / total) * width) : width;
      stream.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`);
      drawn = true;
    },
    finish() {
      if (drawn) stream.write('\n');
    },
  };
}
