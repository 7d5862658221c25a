#!/usr/bin/env node
// Compiles what runs outside the server's TypeScript loader (`npm install` runs it; also
// `npm run build`):
//   dist/cli/        the `episodic` command (bin/episodic.mjs runs dist/cli/main.js): plain
//                    JavaScript, dependencies left to node_modules, operator code split into
//                    chunks loaded only by the commands that need them;
//   packages/client/dist/  the typed client package (scripts/build-client.mjs).
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { buildClientPackage } from './build-client.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export async function buildCli() {
  const outdir = join(root, 'dist', 'cli');
  await rm(outdir, { recursive: true, force: true });
  await build({
    entryPoints: [join(root, 'src', 'cli', 'main.ts')],
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
}

// The Docker image installs dependencies before it copies the sources: nothing to build yet.
if (!existsSync(join(root, 'src', 'cli', 'main.ts'))) {
  console.log('episodic: no sources yet, nothing to build');
} else {
  if (process.argv[2] !== '--client-only') await buildCli();
  // The package's declarations come from tsc, a dev dependency: a production install has no use
  // for the client package and skips it.
  if (existsSync(join(root, 'node_modules', 'typescript'))) await buildClientPackage(root);
  else console.log('episodic: typescript is not installed (production install): client package not built');
}
