#!/usr/bin/env node
// `npm start` runs this first: builds the monitor page (web/ -> web/dist) when it is not built yet.
// `npm run build:web` rebuilds it unconditionally.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
if (!existsSync(join(root, 'web', 'dist', 'index.html'))) {
  const vite = await import('vite').catch(() => null);
  if (!vite) {
    process.stderr.write(
      'episodic: the monitor page is not built and vite is not installed (install dev dependencies, then `npm run build:web`); serving the API only\n',
    );
  } else {
    await vite.build({ configFile: join(root, 'web', 'vite.config.ts'), logLevel: 'warn' });
  }
}
