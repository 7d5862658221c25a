import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { runFolderBase } from '../support/temp-root.ts';

const GB = 1024 ** 3;
const mounts = (options: string, type = 'tmpfs') => `/dev/vda / ext4 rw,relatime 0 0\n${type} /dev/shm ${type} ${options} 0 0\n`;

describe("the test run's folder", () => {
  it('is on /dev/shm when that is a tmpfs with room that allows programs', () => {
    expect(runFolderBase(mounts('rw,nosuid,nodev'), () => 24 * GB)).toBe('/dev/shm');
  });

  it('is in the system temp folder otherwise', () => {
    expect(runFolderBase(mounts('rw,nosuid,nodev,noexec'), () => 24 * GB)).toBe(tmpdir());
    expect(runFolderBase(mounts('rw', 'ext4'), () => 24 * GB)).toBe(tmpdir());
    expect(runFolderBase(mounts('rw'), () => GB)).toBe(tmpdir()); // a container's 64 MB /dev/shm, say
    expect(runFolderBase('', () => 24 * GB)).toBe(tmpdir());
  });
});
