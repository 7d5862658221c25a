// The log command's progress bar: drawn on a terminal, silent otherwise.
import { describe, expect, it } from 'vitest';
import { progressBar } from '../../src/cli/progress.ts';

function fakeStream(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, stream: { isTTY, write: (s: string) => writes.push(s) } as unknown as NodeJS.WriteStream };
}

describe('progressBar', () => {
  it('redraws one line on a terminal and ends it with a newline', () => {
    const { writes, stream } = fakeStream(true);
    const bar = progressBar('logging', stream);
    bar.update(200, 800);
    bar.update(800, 800);
    bar.finish();
    expect(writes[0]).toBe(`\rlogging [${'#'.repeat(8)}${'.'.repeat(22)}] 200/800`);
    expect(writes[1]).toBe(`\rlogging [${'#'.repeat(30)}] 800/800`);
    expect(writes[2]).toBe('\n');
  });

  it('writes nothing when stderr is not a terminal', () => {
    const { writes, stream } = fakeStream(false);
    const bar = progressBar('logging', stream);
    bar.update(1, 2);
    bar.finish();
    expect(writes).toEqual([]);
  });
});
