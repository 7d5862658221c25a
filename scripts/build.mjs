#!/usr/bin/env node
// Compiles what runs outside the server's TypeScript loader (`npm install` runs it; also
// `npm run build`):
//   dist/cli/        the `episodic` command (bin/episodic.mjs runs dist/cli/main.js): plain
//                    JavaScript, dependencies left to node_modules, operator code split into
//                    chunks loaded only by the commands that need them;
//   packages/client/dist/  the typed client package (scripts/build-client.mjs);
//   dist/server/     with --server only (the test suite's global setup): the server as plain
//                    JavaScript, main.js and its step worker beside it, for the test suite's child
//                    servers: a start through tsx spent about 5 s of CPU, this one about 2 s.
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { buildClientPackage } from './build-client.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Plain ESM JavaScript for Node 20, dependencies left to node_modules, chunks shared. */
const NODE_BUNDLE = {
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
};

export async function buildCli() {
  const outdir = join(root, 'dist', 'cli');
  await rm(outdir, { recursive: true, force: true });
  await build({ ...NODE_BUNDLE, entryPoints: [join(root, 'src', 'cli', 'main.ts')], outdir });
}

export async function buildServer() {
  const outdir = join(root, 'dist', 'server');
  await rm(outdir, { recursive: true, force: true });
  await build({
    ...NODE_BUNDLE,
    // Two levels under the root, as src/main.ts is: the paths it finds from import.meta.url
    // (web/dist, prisma/migrations) are the same; the step worker is found beside the module.
    entryPoints: [join(root, 'src', 'main.ts'), join(root, 'src', 'ledger', 'step-worker.ts')],
    entryNames: '[name]',
    outdir,
  });
}

// The Docker image installs dependencies before it copies the sources: nothing to build yet.
if (!existsSync(join(root, 'src', 'cli', 'main.ts'))) {
  console.log('episodic: no sources yet, nothing to build');
} else {
  if (process.argv[2] !== '--client-only') await buildCli();
  if (process.argv.includes('--server')) await buildServer();
  // The package's declarations come from tsc, a dev dependency: a production install has no use
  // for the client package and skips it.
  if (existsSync(join(root, 'node_modules', 'typescript'))) await buildClientPackage(root);
  else console.log('episodic: typescript is not installed (production install): client package not built');
}
