import { join } from 'node:path';
import { z } from 'zod';
import { POLL_MS, type AttachControl, type AttachOpen, type AttachUpdate } from '../../../shared/attach.js';
import type { ProxyInfo } from '../../../shared/api.js';
import { BreakpointRuleInputSchema, breakpointInput, type PausedCall } from '../../../shared/breakpoints.js';
import { RulesFileSchema } from '../../../shared/rules/schema.js';
import type { ExchangeEvent } from '../../../shared/traffic.js';
import type { Log } from '../../engine/log.js';
import { AttachBreakpoints } from './attach-breakpoints.js';
import type { BreakpointHub } from '../proxies/breakpoints.js';
import type { RulesFile } from '../../../shared/rules/schema.js';
import type { ToolView } from '../proxies/proxy-rules.js';
import { StateFile } from '../files/state-file.js';

/**
 * The servers whose mcp-rewind an agent started itself (a wrapped entry: `--stdio --attach`), as the app sees them: a
 * proxy each on the proxies bar (running while one of its processes is attached), its traffic on the timeline, its
 * rules, breakpoints and recording choice kept under its name (`<data folder>/attached.json`) and sent to each
 * process that attaches. A process polls for what to apply; one that stops polling, or whose pid is gone, is dropped.
 */

const SavedSchema = z.strictObject({
  version: z.literal(1),
  servers: z
    .array(
      z.strictObject({
        id: z.string().min(1),
        name: z.string().min(1),
        upstream: z.string(),
        rules: RulesFileSchema.optional(),
        record: z.string().nullable().optional(),
        breakpoints: z.array(BreakpointRuleInputSchema).max(200).default([]),
      }),
    )
    .max(1000),
});

interface Process {
  attachId: string;
  pid: number;
  client?: string;
  /** the folder it records to now */
  recording?: string;
  queue: AttachControl[];
  waiter?: { wake: () => void; timer: NodeJS.Timeout };
  seen: number;
}

interface Attached {
  id: string;
  name: string;
  upstream: string;
  rules?: RulesFile;
  /** the app's recording choice: a folder, null (nowhere), undefined (as each process's args say) */
  record?: string | null;
  tools: ToolView[];
  exchanges: number;
  processes: Map<string, Process>;
  breakpoints: AttachBreakpoints;
}

export interface AttachHost {
  /** puts an exchange of an attached server on the timeline (numbered, announced) */
  publish(proxyId: string, event: ExchangeEvent): void;
  /** the proxies list changed */
  changed(): void;
  breakpoints: BreakpointHub;
  log: Log;
}

/** a process that has not polled for this long (it polls every POLL_MS) is gone */
const STALE_MS = POLL_MS * 2 + 10_000;

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

export class AttachHub {
  private readonly servers = new Map<string, Attached>();
  private readonly byAttach = new Map<string, Attached>();
  private readonly state: StateFile<typeof SavedSchema>;
  private readonly sweeper: NodeJS.Timeout;
  private nextId = 1;

  constructor(
    dataDir: string,
    private readonly host: AttachHost,
  ) {
    this.state = new StateFile(
      join(dataDir, 'attached.json'),
      SavedSchema,
      "no attached servers' rules restored",
      (line) => host.log(line, 'warn'),
    );
    this.sweeper = setInterval(() => this.sweep(), 2_000).unref();
  }

  /** the saved servers, with their rules and breakpoints (after the hub's owner can answer `has`) */
  restore(): void {
    for (const saved of this.state.load()?.servers ?? []) {
      const server = this.add(saved.id, saved.name, saved.upstream);
      server.rules = saved.rules;
      server.record = saved.record;
      if (saved.breakpoints.length) this.host.breakpoints.set(server.id, saved.breakpoints);
    }
  }

  has(id: string): boolean {
    return [...this.servers.values()].some((s) => s.id === id);
  }

  byName(name: string): Attached | undefined {
    return this.servers.get(name);
  }

  list(): ProxyInfo[] {
    return [...this.servers.values()].map((s) => this.info(s));
  }

  find(id: string): Attached | undefined {
    return [...this.servers.values()].find((s) => s.id === id);
  }

  private info(s: Attached): ProxyInfo {
    const processes = [...s.processes.values()];
    const record = processes.find((p) => p.recording)?.recording;
    return {
      id: s.id,
      name: s.name,
      config: {
        name: s.name,
        mode: record ? 'record' : 'proxy-only',
        upstreamCommand: s.upstream || undefined,
        port: 0,
        ...(record ? { cacheDir: record } : {}),
        ...(s.rules ? { rules: s.rules } : {}),
      },
      state: processes.length ? 'running' : 'stopped',
      exchanges: s.exchanges,
      attached: {
        processes: processes.length,
        clients: [...new Set(processes.map((p) => p.client).filter((c): c is string => !!c))],
        ...(record ? { record } : {}),
      },
    };
  }

  private add(id: string, name: string, upstream: string): Attached {
    const server: Attached = {
      id,
      name,
      upstream,
      tools: [],
      exchanges: 0,
      processes: new Map(),
      breakpoints: undefined!,
    };
    server.breakpoints = new AttachBreakpoints(id, (control, attachId) => this.send(server, control, attachId));
    this.servers.set(name, server);
    const n = /^a(\d+)$/.exec(id)?.[1];
    if (n) this.nextId = Math.max(this.nextId, Number(n) + 1);
    this.host.breakpoints.attach(id, server.breakpoints);
    return server;
  }

  open(input: AttachOpen): { proxyId: string; control: AttachControl } {
    const server = this.servers.get(input.name) ?? this.add(`a${this.nextId++}`, input.name, input.upstream);
    server.upstream = input.upstream;
    const previous = this.byAttach.get(input.attachId);
    if (previous && previous !== server) this.close(input.attachId);
    const process: Process = server.processes.get(input.attachId) ?? {
      attachId: input.attachId,
      pid: input.pid,
      queue: [],
      seen: Date.now(),
    };
    process.client = input.client?.name ?? process.client;
    server.processes.set(input.attachId, process);
    this.byAttach.set(input.attachId, server);
    this.save();
    this.host.changed();
    const control: AttachControl = {
      rules: server.rules ?? null,
      breakpoints: server.breakpoints.inputs(),
      ...(server.record !== undefined ? { record: server.record } : {}),
    };
    return { proxyId: server.id, control };
  }

  exchanges(attachId: string, events: ExchangeEvent[]): { accepted: number } {
    const server = this.process(attachId).server;
    for (const event of events) {
      server.exchanges++;
      this.host.publish(server.id, event);
    }
    this.host.changed();
    return { accepted: events.length };
  }

  update(input: AttachUpdate): { ok: true } {
    const { server, process } = this.process(input.attachId);
    if (input.client) process.client = input.client.name;
    if (input.tools) server.tools = input.tools as ToolView[];
    if (input.recording !== undefined) process.recording = input.recording ?? undefined;
    if (input.paused) server.breakpoints.report(input.attachId, input.paused as PausedCall[]);
    if (input.client || input.recording !== undefined) this.host.changed();
    return { ok: true };
  }

  /** answers at once with what is queued, else when something comes or after POLL_MS */
  poll(attachId: string): Promise<AttachControl[]> {
    const { process } = this.process(attachId);
    process.seen = Date.now();
    if (process.queue.length) return Promise.resolve(process.queue.splice(0));
    process.waiter?.wake();
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        if (process.waiter?.wake === wake) process.waiter = undefined;
        process.seen = Date.now();
        resolve(process.queue.splice(0));
      };
      const timer = setTimeout(wake, POLL_MS);
      process.waiter = { wake, timer };
    });
  }

  close(attachId: string): { closed: true } {
    const server = this.byAttach.get(attachId);
    const process = server?.processes.get(attachId);
    if (server && process) {
      process.waiter?.wake();
      server.processes.delete(attachId);
      server.breakpoints.gone(attachId);
      this.host.changed();
    }
    this.byAttach.delete(attachId);
    return { closed: true };
  }

  getRules(id: string): { rules: RulesFile | null; tools: ToolView[] } {
    const server = this.must(id);
    return { rules: server.rules ?? null, tools: server.tools };
  }

  setRules(id: string, rules: RulesFile): { rules: RulesFile; tools: ToolView[]; notified: number } {
    const server = this.must(id);
    server.rules = rules;
    this.send(server, { rules });
    this.save();
    this.host.changed();
    return { rules, tools: server.tools, notified: server.processes.size };
  }

  setRecord(id: string, dir: string | null | undefined): { proxyId: string; record: string | null | undefined } {
    const server = this.must(id);
    server.record = dir;
    this.send(server, { record: dir === undefined ? undefined : dir });
    this.save();
    return { proxyId: id, record: dir };
  }

  /** The app forgets a server: its processes go on as plain pass-throughs. */
  remove(id: string): { removed: true } {
    const server = this.must(id);
    this.send(server, { detach: true });
    for (const attachId of server.processes.keys()) this.byAttach.delete(attachId);
    this.servers.delete(server.name);
    this.host.breakpoints.forget(id);
    this.save();
    this.host.changed();
    return { removed: true };
  }

  saveBreakpoints(): void {
    this.save();
  }

  async shutdown(): Promise<void> {
    clearInterval(this.sweeper);
    for (const server of this.servers.values()) for (const p of server.processes.values()) p.waiter?.wake();
    this.save();
    await this.state.flush();
  }

  private send(server: Attached, control: AttachControl, attachId?: string): void {
    for (const p of server.processes.values()) {
      if (attachId && p.attachId !== attachId) continue;
      p.queue.push(control);
      p.waiter?.wake();
    }
  }

  private process(attachId: string): { server: Attached; process: Process } {
    const server = this.byAttach.get(attachId);
    const process = server?.processes.get(attachId);
    if (!server || !process) throw new Error(`attachId: no attached process "${attachId}" (say attach.open first)`);
    return { server, process };
  }

  private must(id: string): Attached {
    const server = this.find(id);
    if (!server) throw new Error(`id: no proxy "${id}"`);
    return server;
  }

  private sweep(): void {
    const now = Date.now();
    for (const server of this.servers.values())
      for (const p of server.processes.values())
        if (!alive(p.pid) || (!p.waiter && now - p.seen > STALE_MS)) this.close(p.attachId);
  }

  private save(): void {
    const rules = this.host.breakpoints.state().rules;
    this.state.save({
      version: 1,
      servers: [...this.servers.values()].map((s) => ({
        id: s.id,
        name: s.name,
        upstream: s.upstream,
        ...(s.rules ? { rules: s.rules } : {}),
        ...(s.record !== undefined ? { record: s.record } : {}),
        breakpoints: (rules[s.id] ?? []).map(breakpointInput),
      })),
    });
  }
}
