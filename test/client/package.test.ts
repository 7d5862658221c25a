// The client package as a user gets it: `npm pack` of packages/client, installed into an empty
// project (its two dependencies from npm's cache when offline, else the registry), then the
// docs/CLIENT.md's five-line script run as ESM, the same with require() as CommonJS, and a TypeScript
// file type-checked against the installed declarations: all against a real server.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

const run = promisify(execFile);
const npmEnv = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, npm_config_audit: 'false', npm_config_fund: 'false' };

let t: TestApp;
let project: string;
beforeAll(async () => {
  t = await startTestApp();
  project = await mkdtemp(join(tmpdir(), 'episodic-client-project-'));
  const packed = await run('npm', ['pack', join(process.cwd(), 'packages', 'client'), '--pack-destination', project, '--silent'], { env: npmEnv });
  const tarball = packed.stdout.trim().split('\n').pop() as string;
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'empty-project', private: true }));
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', `./${tarball}`], { cwd: project, env: npmEnv });
}, 180_000);
afterAll(async () => {
  await t.stop();
  await rm(project, { recursive: true, force: true });
});

/** The ```js block under "### A script in five lines" in docs/CLIENT.md. */
async function readmeScript(): Promise<string> {
  const readme = await readFile('docs/CLIENT.md', 'utf8');
  const section = readme.slice(readme.indexOf('### A script in five lines'));
  const match = /```js\n([\s\S]*?)```/.exec(section);
  if (!match?.[1]) throw new Error('no js block in the docs/CLIENT.md section');
  return match[1];
}

const runScript = (file: string) =>
  run(process.execPath, [file], { cwd: project, env: { PATH: process.env.PATH ?? '', EPISODIC_URL: t.url, EPISODIC_API_KEY: t.keys.write } });

// Each test starts node or tsc processes on a packed package: a few seconds idle, tsc over 60 s at
// load 25-35 on 2 cores; not vitest's default timeout.
describe('the packed client package', { timeout: 180_000 }, () => {
  it('runs the docs/CLIENT.md script from an empty project as ESM', async () => {
    const script = await readmeScript();
    expect(script.trim().split('\n')).toHaveLength(5);
    await writeFile(join(project, 'script.mjs'), script);
    expect((await runScript('script.mjs')).stdout.trim()).toBe('COMPLETED');
  });

  it('runs the same script as CommonJS with require()', async () => {
    const body = (await readmeScript())
      .replace(/^import \{ (.*) \} from '@episodic\/client';$/m, "const { $1 } = require('@episodic/client');")
      .split('\n')
      .slice(1)
      .join('\n');
    await writeFile(join(project, 'script.cjs'), `const { createEpisodicClient, unwrap } = require('@episodic/client');\n(async () => {\n${body}\n})();\n`);
    expect((await runScript('script.cjs')).stdout.trim()).toBe('COMPLETED');
  });

  it('type-checks a TypeScript file against the installed declarations (and catches a wrong one)', async () => {
    // One tsc over both files (a run takes seconds of CPU): it reports every file's errors.
    await writeFile(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, types: [] },
        files: ['check.mts', 'wrong.mts'],
      }),
    );
    const good = `import { createEpisodicClient, unwrap, type Episode } from '@episodic/client';\nconst client = createEpisodicClient({ url: 'http://localhost:4000/graphql' });\nexport async function status(id: string): Promise<Episode['status']> { return unwrap(await client.episode(id)).status; }\n`;
    await writeFile(join(project, 'check.mts'), good);
    await writeFile(
      join(project, 'wrong.mts'),
      `import { createEpisodicClient } from '@episodic/client';\nexport const wrong: number = createEpisodicClient({ url: 'x' });\n`,
    );
    const tsc = [join(process.cwd(), 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project];
    const errors = await run(process.execPath, tsc, { cwd: project }).then(
      () => '',
      (e: { stdout: string }) => e.stdout,
    );
    const lines = errors.trim().split('\n');
    expect(lines).toEqual([expect.stringMatching(/^wrong\.mts\(2,\d+\): error TS2322/)]);
  });
});
