/**
 * Top self-time frames of a V8 .cpuprofile (as written by `node --cpu-prof`, e.g. BENCH_PROFILE=1 npm run bench).
 *   node --import tsx bench/prof-top.ts <file.cpuprofile> [count]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, countArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: prof-top.ts <file.cpuprofile> [count]\n');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  const where = url ? `${url.replace(/^.*\/(node_modules|src|bench)\//, '$1/')}:${lineNumber + 1}` : '';
  const name = `${functionName || '(anonymous)'} ${where}`.trim();
  self.set(name, (self.get(name) ?? 0) + dt);
  total += dt;
});
const idle = self.get('(idle)') ?? 0;
process.stdout.write(
  `${file}: ${(total / 1000).toFixed(0)} ms sampled, ${(((total - idle) / total) * 100).toFixed(1)}% busy\n`,
);
process.stdout.write('self ms   % busy  frame\n');
for (const [name, us] of [...self]
  .filter(([n]) => n !== '(idle)')
  .sort((a, b) => b[1] - a[1])
  .slice(0, Number(countArg ?? 25))) {
  process.stdout.write(
    `${(us / 1000).toFixed(0).padStart(7)}  ${((us / (total - idle)) * 100).toFixed(1).padStart(6)}  ${name}\n`,
  );
}
