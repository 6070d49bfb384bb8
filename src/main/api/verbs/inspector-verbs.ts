import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type {
  AppServerRequest,
  Annotation,
  CommandInput,
  CommandOutputs,
  SaveResult,
  SourceInfo,
  TrafficEvent,
} from '../../../shared/api.js';
import { CassetteStore } from '../../engine/cassette/store.js';
import { AppSessions } from './app-sessions.js';
import { ServerRequestDesk } from './server-request-desk.js';
import { TimelineState, type TimelineRing } from '../traffic/timeline-state.js';
import { saveTraffic } from '../traffic/traffic-save.js';

/** What the verbs need of the controller. */
export interface VerbsHost {
  dataDir: string;
  version: string;
  ring: TimelineRing & { snapshot(): TrafficEvent[] };
  /** the Preserve log setting */
  preserveLog(): boolean;
  /** a running proxy's endpoint */
  proxyUrl(id: string): string | undefined;
  /** a proxy's cassette: the running store, or its folder */
  cassetteOf(id: string): { store?: CassetteStore; dir?: string } | undefined;
  emit: {
    annotations(all: Record<number, Annotation>): void;
    sources(all: SourceInfo[]): void;
    appRequests(all: AppServerRequest[]): void;
  };
  log(line: string, level: 'info' | 'warn'): void;
}

/**
 * The inspector's verbs on the timeline (issue 13): send again, edit and send, compose a call — through a proxy's
 * own pipeline, on the app's session —, pins and notes, files opened into the timeline, saving exchanges, and the
 * recorded answers an exchange can be compared with.
 */
export class InspectorVerbs {
  readonly timeline: TimelineState;
  readonly sessions: AppSessions;
  readonly desk: ServerRequestDesk;

  constructor(private readonly host: VerbsHost) {
    this.timeline = new TimelineState(
      host.dataDir,
      host.ring,
      host.emit,
      (line) => host.log(line, 'warn'),
      () => host.preserveLog(),
    );
    this.desk = new ServerRequestDesk((all) => host.emit.appRequests(all));
    this.sessions = new AppSessions((id) => host.proxyUrl(id), this.desk, host.version, host.log);
  }

  async send(input: CommandInput<'exchange.send'>): Promise<CommandOutputs['exchange.send']> {
    if (this.timeline.isSource(input.proxyId))
      throw new Error('proxyId: an opened file cannot answer; choose a running proxy to send to');
    const from = input.from;
    if (from !== undefined && !this.host.ring.find(from)) throw new Error(`from: no exchange #${from} in the timeline`);
    const { response, event } = await this.sessions.send(input.proxyId, {
      method: input.method,
      params: input.params,
      sentBy: { kind: input.kind, ...(from !== undefined ? { from } : {}) },
      ...(input.headers ? { headers: input.headers } : {}),
    });
    return { ...(event ? { seq: event.seq } : {}), response };
  }

  async save(input: CommandInput<'traffic.save'>): Promise<SaveResult> {
    const all = this.host.ring.snapshot();
    const wanted = input.seqs && new Set(input.seqs);
    const events = wanted ? all.filter((e) => wanted.has(e.seq)) : all;
    if (events.length === 0) throw new Error('seqs: no exchange to save');
    const notes = this.timeline.annotations();
    return saveTraffic(events, {
      format: input.format,
      out: input.out,
      overwrite: input.overwrite,
      urlOf: (e) => this.host.proxyUrl(e.proxyId),
      noteOf: (seq) => notes[seq]?.note,
      version: this.host.version,
    });
  }

  /** The recorded answers for a key in a proxy's cassette, oldest first (what replay serves, in order). */
  async recorded(proxyId: string, key: string): Promise<CommandOutputs['cassettes.lookup']> {
    const cassette = this.host.cassetteOf(proxyId);
    if (!cassette?.dir) throw new Error('proxyId: this proxy has no cassette (proxy-only)');
    let store = cassette.store;
    if (!store) {
      const dir = resolve(cassette.dir);
      if (!(await stat(dir).catch(() => undefined))) throw new Error(`the cassette folder ${dir} does not exist`);
      store = await CassetteStore.open(dir, { watch: false });
      store.close();
    }
    const entries = (store.lookup(key) ?? []).map((e) => ({
      file: e.file,
      n: e.n,
      result: e.result,
      ...(e.stream ? { stream: e.stream } : {}),
      ...(e.recordedAt ? { recordedAt: e.recordedAt } : {}),
    }));
    return { dir: store.dir, entries };
  }

  async close(): Promise<void> {
    await this.sessions.close();
    await this.timeline.close();
  }
}
