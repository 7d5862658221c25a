// Builds the typed client package in packages/client/dist from src/index.ts: an ESM and a
// CommonJS bundle (its own code and the small pure libraries it uses, inlined; graphql-ws and ws
// stay dependencies) and the type declarations tsc emits, with their imports pointing at .js.
import { execFileSync } from 'node:child_process';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';

const EXTERNAL = ['graphql-ws', 'ws'];

async function declarations(root, outDir) {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  // packages/client/tsconfig.json: the project's compiler options, emitting declarations only.
  execFileSync(process.execPath, [tsc, '-p', join(root, 'packages', 'client', 'tsconfig.json')], { stdio: 'inherit' });
  for (const entry of await readdir(outDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.d.ts')) continue;
    const file = join(entry.parentPath, entry.name);
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace(/((?:from |import\()["'])(\.{1,2}\/[^"']+)\.ts(["'])/g, '$1$2.js$3'));
  }
}

export async function buildClientPackage(root) {
  const pkg = join(root, 'packages', 'client');
  const dist = join(pkg, 'dist');
  await rm(dist, { recursive: true, force: true });
  const common = { entryPoints: [join(root, 'src', 'index.ts')], bundle: true, platform: 'node', target: 'node20', external: EXTERNAL, logLevel: 'warning' };
  await build({ ...common, format: 'esm', outfile: join(dist, 'index.js') });
  await build({ ...common, format: 'cjs', outfile: join(dist, 'index.cjs') });
  await declarations(root, join(dist, 'types'));
}
