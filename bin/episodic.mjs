#!/usr/bin/env node
// Entry for `npx episodic` / the installed bin: runs the TypeScript CLI through tsx (Node 20 has
// no type stripping).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
