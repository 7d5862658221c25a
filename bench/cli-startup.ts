// `episodic --help` start-up time: the compiled CLI (bin/episodic.mjs -> dist/cli) against bare
// `node -e ''` (the floor, measured in the same run) and the TypeScript sources through tsx (how
// the CLI ran before it was compiled). Runs are interleaved so machine load hits all alike; the
// CPU time (user + sys, from /usr/bin/time) is printed beside the wall time because on a shared,
// loaded machine it is the steadier of the two.
// Usage: npm run build && npm run bench:cli [-- runs]
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const runs = Number(process.argv[2] ?? 15);
const TIME = '/usr/bin/time';
const variants: Record<string, string[]> = {
  'node -e ""': ['-e', ''],
  'episodic --help (compiled)': ['bin/episodic.mjs', '--help'],
  'episodic --help (tsx sources)': ['--import', 'tsx', 'src/cli/main.ts', '--help'],
};

interface Sample {
  wallMs: number;
  cpuMs: number;
}

function measure(args: string[]): Sample {
  const start = process.hrtime.bigint();
  if (!existsSync(TIME)) {
    spawnSync(process.execPath, args, { stdio: 'ignore' });
    return { wallMs: Number(process.hrtime.bigint() - start) / 1e6, cpuMs: NaN };
  }
  const r = spawnSync(TIME, ['-f', 'cpu %U %S', process.execPath, ...args], { encoding: 'utf8' });
  const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
  const [, user, sys] = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(r.stderr) ?? [];
  return { wallMs, cpuMs: (Number(user) + Number(sys)) * 1000 };
}

const samples: Record<string, Sample[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
for (let i = 0; i < runs; i++) for (const [name, args] of Object.entries(variants)) samples[name]?.push(measure(args));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const floor = samples['node -e ""'] ?? [];
const floorWall = median(floor.map((s) => s.wallMs));
const floorCpu = median(floor.map((s) => s.cpuMs));
console.log(`${runs} runs each, interleaved; medians`);
for (const [name, xs] of Object.entries(samples)) {
  const wall = median(xs.map((s) => s.wallMs));
  const cpu = median(xs.map((s) => s.cpuMs));
  console.log(
    `${name.padEnd(32)} wall ${wall.toFixed(0).padStart(5)} ms (min ${Math.min(...xs.map((s) => s.wallMs))
      .toFixed(0)
      .padStart(4)}) x${(wall / floorWall).toFixed(2)}   cpu ${cpu.toFixed(0).padStart(5)} ms x${(cpu / floorCpu).toFixed(2)}   of bare node`,
  );
}
