#!/usr/bin/env node
// Entry for `npx episodic` / the installed bin: the compiled CLI (scripts/build.mjs, run by
// `npm install` and `npm run build`). No TypeScript loader at run time.
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(compiled)) {
  process.stderr.write('episodic: the CLI is not built; run `npm run build` (npm install does it)\n');
  process.exit(1);
}
await import(compiled.href);
