import { join } from 'node:path';
import { z } from 'zod';
import type { Annotation, SourceInfo, TrafficEvent } from '../../../shared/api.js';
import { reserveSeqs } from '../../engine/pipeline/core/exchange.js';
import { StateFile } from '../files/state-file.js';
import { forgetLog, loadLog, SavedEventSchema, saveLog } from './timeline-log.js';
import { importTraffic } from './traffic-import.js';

/**
 * What the timeline keeps besides its ring of exchanges, in `<data folder>/timeline.json`: its numbering (#123 is
 * never reused, across restarts), pins and notes (a pinned or noted exchange is kept with them, survives Clear and
 * restarts), and the files and folders opened into it as read-only sources (opened again at the next start).
 */
export const TIMELINE_FILE = 'timeline.json';
const MAX_KEPT = 2_000;
const MAX_SOURCES = 50;

const KeptSchema = z.strictObject({
  seq: z.number().int(),
  pinned: z.boolean(),
  note: z.string().max(500).optional(),
  /** a live exchange: kept whole */
  event: SavedEventSchema.optional(),
  /** an exchange of an opened file: which one (it is read again from the file) */
  source: z.strictObject({ id: z.string(), index: z.number().int().min(0) }).optional(),
});
const TimelineSchema = z.strictObject({
  version: z.literal(1),
  nextSeq: z.number().int().min(1),
  kept: z.array(KeptSchema).max(MAX_KEPT),
  sources: z.array(z.strictObject({ id: z.string().min(1), path: z.string().min(1) })).max(MAX_SOURCES),
});

/** What the timeline state needs of the controller's ring of exchanges. */
export interface TimelineRing {
  /** adds exchanges; `announce`: one traffic event each (else the UI re-reads the ring after a 'sources' event) */
  add(events: TrafficEvent[], announce: boolean): void;
  remove(matches: (event: TrafficEvent) => boolean): TrafficEvent[];
  find(seq: number): TrafficEvent | undefined;
  /** every exchange as the ring keeps it (large bodies truncated), oldest first: what Preserve log saves */
  kept(): TrafficEvent[];
  /** the ring's byte cap */
  readonly maxBytes: number;
}

export class TimelineState {
  private readonly file: StateFile<typeof TimelineSchema>;
  /**
   * Timeline numbers are the engine's exchange numbers (request order) shifted past every number of earlier runs, so
   * #123 is never reused, across restarts; a file's exchanges reserve engine numbers.
   */
  private base = 0;
  private readonly marks = new Map<number, Annotation>();
  /** annotated exchanges of live proxies, as they were */
  private readonly keptEvents = new Map<number, TrafficEvent>();
  private readonly sources = new Map<string, SourceInfo>();
  /** exchanges of opened files: which file and which exchange in it */
  private readonly fromSource = new Map<number, { id: string; index: number }>();
  private nextSource = 1;
  private ready: Promise<void> = Promise.resolve();
  /**
   * What timeline.json listed that is not open again yet (restore reopens the sources one by one): written back as it
   * was, so that a stop in the middle of a restore loses no file and no pin.
   */
  private unrestored: { sources: Array<{ id: string; path: string }>; kept: Array<z.output<typeof KeptSchema>> } = {
    sources: [],
    kept: [],
  };

  constructor(
    private readonly dataDir: string,
    private readonly ring: TimelineRing,
    private readonly changed: { annotations(all: Record<number, Annotation>): void; sources(all: SourceInfo[]): void },
    private readonly log: (line: string) => void,
    /** Preserve log: the whole timeline is kept across restarts (the setting, read at start and at stop) */
    private readonly preserve: () => boolean = () => false,
  ) {
    this.file = new StateFile(join(dataDir, TIMELINE_FILE), TimelineSchema, 'no pinned exchanges restored', log);
  }

  /** Puts back the kept exchanges and opens the sources again (resolves when the sources are read). */
  restore(): Promise<void> {
    const saved = this.file.load();
    if (!saved) return this.ready;
    this.base = Math.max(0, saved.nextSeq - reserveSeqs(0));
    const live = saved.kept.filter((k) => k.event).sort((a, b) => a.seq - b.seq);
    for (const k of live) {
      this.marks.set(k.seq, { pinned: k.pinned, ...(k.note ? { note: k.note } : {}) });
      this.keptEvents.set(k.seq, { ...(k.event as unknown as TrafficEvent), seq: k.seq });
    }
    const logged = this.preserve() ? this.loadLog(saved.nextSeq) : [];
    const inLog = new Set(logged.map((e) => e.seq));
    this.ring.add([...logged, ...[...this.keptEvents.values()].filter((e) => !inLog.has(e.seq))], false);
    this.unrestored = { sources: [...saved.sources], kept: saved.kept.filter((k) => k.source) };
    this.ready = (async () => {
      for (const { id, path } of saved.sources) {
        const marks = new Map(saved.kept.filter((k) => k.source?.id === id).map((k) => [k.source!.index, k]));
        await this.open(path, id, marks).catch((error: Error) =>
          this.log(`${path} was not opened again: ${error.message}`),
        );
        this.settle(id);
      }
      this.changed.annotations(this.annotations());
    })();
    return this.ready;
  }

  /** The timeline number of a live exchange (from the engine's own number: the order requests came in). */
  numberOf(engineSeq: number): number {
    return this.base + engineSeq;
  }

  annotations(): Record<number, Annotation> {
    return Object.fromEntries(this.marks);
  }

  /** An annotated exchange survives Clear. */
  keeps(seq: number): boolean {
    return this.marks.has(seq);
  }

  annotate(seq: number, patch: { pinned?: boolean; note?: string }): Record<number, Annotation> {
    const event = this.ring.find(seq);
    if (!event) throw new Error(`seq: no exchange #${seq} in the timeline`);
    const was = this.marks.get(seq) ?? { pinned: false };
    const note = patch.note === undefined ? was.note : patch.note.trim() || undefined;
    const mark: Annotation = { pinned: patch.pinned ?? was.pinned, ...(note ? { note } : {}) };
    if (!mark.pinned && !mark.note) {
      this.marks.delete(seq);
      this.keptEvents.delete(seq);
    } else {
      if (this.marks.size + this.unrestored.kept.length >= MAX_KEPT && !this.marks.has(seq))
        throw new Error(`at most ${MAX_KEPT} exchanges can be pinned or noted`);
      this.marks.set(seq, mark);
      if (!this.fromSource.has(seq)) this.keptEvents.set(seq, event);
    }
    this.persist();
    const all = this.annotations();
    this.changed.annotations(all);
    return all;
  }

  listSources(): SourceInfo[] {
    return [...this.sources.values()];
  }

  isSource(id: string): boolean {
    return this.sources.has(id);
  }

  async openSource(path: string, cwd?: string): Promise<SourceInfo> {
    await this.ready;
    if (this.sources.size >= MAX_SOURCES) throw new Error(`at most ${MAX_SOURCES} files can be open; close one first`);
    const info = await this.open(path, undefined, new Map(), cwd);
    this.persist();
    return info;
  }

  closeSource(id: string): void {
    if (!this.sources.delete(id)) throw new Error(`id: no open file "${id}"`);
    const removed = this.ring.remove((e) => e.proxyId === id);
    for (const e of removed) {
      this.fromSource.delete(e.seq);
      this.marks.delete(e.seq);
    }
    this.persist();
    this.changed.sources(this.listSources());
    this.changed.annotations(this.annotations());
  }

  /** Saves the numbering too (new exchanges do not write the file; a pin or a source change does), and the log. */
  async close(): Promise<void> {
    this.persist();
    await this.file.flush();
    try {
      if (!this.preserve()) return forgetLog(this.dataDir);
      // the live exchanges: an opened file's are read from the file again
      await saveLog(
        this.dataDir,
        this.ring.kept().filter((e) => !this.fromSource.has(e.seq)),
      );
    } catch (error) {
      this.log(`the timeline was not kept for the next start: ${(error as Error).message}`);
    }
  }

  /** Preserve log at start: the exchanges of the last run (numbered before `nextSeq`, so never renumbered). */
  private loadLog(nextSeq: number): TrafficEvent[] {
    const found = loadLog(this.dataDir, this.ring.maxBytes);
    if (found.problem) this.log(found.problem);
    if (found.skipped)
      this.log(
        `${found.skipped} line${found.skipped === 1 ? '' : 's'} of the saved timeline were not exchanges: left out`,
      );
    return found.events.filter((e) => e.seq < nextSeq);
  }

  private async open(
    path: string,
    id: string | undefined,
    marks: Map<number, z.output<typeof KeptSchema>>,
    cwd?: string,
  ): Promise<SourceInfo> {
    const found = await importTraffic(path, cwd);
    const already = [...this.sources.values()].find((s) => s.path === found.path);
    if (already) throw new Error(`path: ${found.path} is open already (${already.name})`);
    const sourceId = id ?? this.freeSourceId();
    const first = this.base + reserveSeqs(found.events.length);
    const events = found.events.map((event, index): TrafficEvent => {
      const mark = marks.get(index);
      const seq = mark ? mark.seq : first + index;
      this.fromSource.set(seq, { id: sourceId, index });
      if (mark) this.marks.set(seq, { pinned: mark.pinned, ...(mark.note ? { note: mark.note } : {}) });
      return { ...event, seq, proxyId: sourceId };
    });
    const info: SourceInfo = {
      id: sourceId,
      name: found.name,
      kind: found.kind,
      path: found.path,
      exchanges: events.length,
      skipped: found.skipped,
    };
    try {
      this.ring.add(events, false);
    } catch (error) {
      // a file that failed to open leaves nothing behind: not listed, not in timeline.json, none of its exchanges
      this.ring.remove((e) => e.proxyId === sourceId);
      for (const e of events) {
        this.fromSource.delete(e.seq);
        this.marks.delete(e.seq);
      }
      throw error;
    }
    this.sources.set(sourceId, info);
    this.changed.sources(this.listSources());
    return info;
  }

  /** a saved source was opened again (or could not be: it is gone from the file from now on) */
  private settle(id: string): void {
    this.unrestored = {
      sources: this.unrestored.sources.filter((s) => s.id !== id),
      kept: this.unrestored.kept.filter((k) => k.source?.id !== id),
    };
  }

  private freeSourceId(): string {
    while (
      this.sources.has(`s${this.nextSource}`) ||
      this.unrestored.sources.some((s) => s.id === `s${this.nextSource}`)
    )
      this.nextSource++;
    return `s${this.nextSource++}`;
  }

  private persist(): void {
    const kept: Array<z.output<typeof KeptSchema>> = [];
    for (const [seq, mark] of this.marks) {
      const source = this.fromSource.get(seq);
      const event = this.keptEvents.get(seq);
      if (!source && !event) continue;
      kept.push({
        seq,
        pinned: mark.pinned,
        ...(mark.note ? { note: mark.note } : {}),
        ...(source ? { source } : { event: event as unknown as z.output<typeof SavedEventSchema> }),
      });
    }
    const sources = [...this.listSources().map(({ id, path }) => ({ id, path })), ...this.unrestored.sources];
    this.file.save({
      version: 1,
      nextSeq: this.base + reserveSeqs(0),
      kept: [...kept, ...this.unrestored.kept],
      sources,
    });
  }
}
