#!/usr/bin/env node
// Compiles what runs outside the server's TypeScript loader (`npm install` runs it; also
// `npm run build`):
//   dist/cli/        the `episodic` command (bin/episodic.mjs runs dist/cli/main.js): plain
//                    JavaScript, dependencies left to node_modules, operator code split into
//                    chunks loaded only by the commands that need them;
//   packages/client/dist/  the typed client package (scripts/build-client.mjs);
//   dist/server/     with --server only (the test suite's global setup, the Docker image): the
//                    server as plain JavaScript; `npm start` builds it when a source is newer
//                    (scripts/prestart.mjs). A start through tsx spent about 5 s of CPU, this one 2 s.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildClientPackage } from './build-client.mjs';
import { buildCli, buildServer } from './node-builds.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

// The Docker image installs dependencies before it copies the sources: nothing to build yet.
if (!existsSync(join(root, 'src', 'cli', 'main.ts'))) {
  console.log('episodic: no sources yet, nothing to build');
} else {
  if (process.argv[2] !== '--client-only') await buildCli();
  if (process.argv.includes('--server')) await buildServer({ clean: true });
  // The package's declarations come from tsc, a dev dependency: a production install has no use
  // for the client package and skips it.
  if (existsSync(join(root, 'node_modules', 'typescript'))) await buildClientPackage(root);
  else console.log('episodic: typescript is not installed (production install): client package not built');
}
