#!/usr/bin/env node
// `npm start` runs this first: compiles the server (src/ -> dist/server, esbuild, about 0.2 s) when
// a source is newer than the last build, so a start runs plain JavaScript (1.1-1.2 s to serving
// where a start through tsx took 1.4-1.8 s, docs/BENCHMARKS.md), and builds the monitor page (web/ -> web/dist) when it is
// not built yet. `npm run build:web` rebuilds the page unconditionally.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildServer, serverBuildIsStale } from './node-builds.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

if (serverBuildIsStale()) await buildServer({ clean: false });

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
