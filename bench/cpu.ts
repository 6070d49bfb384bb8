/**
 * CPU time of processes (user + system, all threads), from /proc/<pid>/stat on Linux; NaN elsewhere.
 * On a 2-core machine where the load generator itself can be the bottleneck, CPU time per request is the steadier
 * measure of what a server costs.
 */
import { readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on every Linux platform node supports

export function cpuMs(pid: number): number {
  if (pid === process.pid) {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from #3 (state) on
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS; // #14 utime, #15 stime
  } catch {
    return NaN;
  }
}

/** Accumulates CPU milliseconds per named process over measured intervals. */
export class CpuMeter {
  readonly totals = new Map<string, number>();

  constructor(private readonly processes: Array<{ label: string; pid: number }>) {
    for (const p of processes) this.totals.set(p.label, 0);
  }

  async measure<T>(work: () => Promise<T>): Promise<T> {
    const before = this.processes.map((p) => cpuMs(p.pid));
    const result = await work();
    this.processes.forEach((p, i) =>
      this.totals.set(p.label, (this.totals.get(p.label) ?? 0) + cpuMs(p.pid) - before[i]),
    );
    return result;
  }
}
