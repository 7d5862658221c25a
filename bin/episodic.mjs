#!/usr/bin/env node
// Entry for the installed `episodic` bin (npm install -g, npm link, npm pack): the compiled CLI,
// or for `episodic serve` the compiled server (both built by scripts/build.mjs, which `npm
// install` runs). No TypeScript loader at run time.
import { existsSync } from 'node:fs';

const [command, ...rest] = process.argv.slice(2);
const serve = command === 'serve' && !rest.some((a) => a === '--help' || a === '-h');
const compiled = new URL(serve ? '../dist/server/main.js' : '../dist/cli/main.js', import.meta.url);
if (!existsSync(compiled)) {
  const what = serve ? 'server' : 'CLI';
  process.stderr.write(
    `episodic: the ${what} is not built; run \`node scripts/build.mjs --server\` in ${new URL('..', import.meta.url).pathname} (npm install does it)\n`,
  );
  process.exit(1);
}
await import(compiled.href);
