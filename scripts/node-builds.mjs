// The esbuild builds of what runs as plain JavaScript: the `episodic` command and the server.
import { readdirSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SERVER_DIR = join(root, 'dist', 'server');

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

/**
 * dist/server: main.js and its verification worker beside it. `clean` empties the folder first; `npm start`
 * builds without it, since a running server of the same checkout may still load a chunk it left
 * for later (the MCP endpoint's), and chunk names change with their content.
 */
export async function buildServer({ clean }) {
  if (clean) await rm(SERVER_DIR, { recursive: true, force: true });
  await build({
    ...NODE_BUNDLE,
    // Two levels under the root, as src/main.ts is: the paths it finds from import.meta.url
    // (web/dist, prisma/migrations) are the same; the verification worker is found beside the module.
    entryPoints: [
      join(root, 'src', 'main.ts'),
      join(root, 'src', 'ledger', 'verification', 'verify-worker.ts'),
      join(root, 'src', 'retrieval', 'index-worker.ts'),
    ],
    entryNames: '[name]',
    outdir: SERVER_DIR,
  });
}

/** True when dist/server/main.js is missing or older than a source file or this build's options. */
export function serverBuildIsStale() {
  let built;
  try {
    built = statSync(join(SERVER_DIR, 'main.js')).mtimeMs;
  } catch {
    return true;
  }
  return newestChange(join(root, 'src')) > built || statSync(fileURLToPath(import.meta.url)).mtimeMs > built;
}

function newestChange(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestChange(path) : statSync(path).mtimeMs);
  }
  return newest;
}
