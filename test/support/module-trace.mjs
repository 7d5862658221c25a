// A module resolve hook (node --import) that prints every module a process loads, one per line on
// stderr as "LOADED <url>": the CLI start-up test reads it.
import { register } from 'node:module';

register(
  `data:text/javascript,${encodeURIComponent(
    "export async function resolve(specifier, context, next) { const r = await next(specifier, context); process.stderr.write('LOADED ' + r.url + '\\n'); return r; }",
  )}`,
);
