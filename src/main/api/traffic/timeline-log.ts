import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { TrafficEvent } from '../../../shared/api.js';
import { parseJson } from '../../../shared/json-depth.js';
import { openAtomicStream } from '../../engine/fs/atomic-write.js';

/**
 * "Preserve log": the timeline's exchanges kept across a restart, in `<data folder>/timeline-log.jsonl` — one
 * exchange per line, as the timeline keeps them (large bodies truncated), so the file is bounded by the timeline's
 * own byte cap. Written atomically and owner-only when the app stops; read back at start; a line that is not a
 * usable exchange is skipped (and counted), never the whole file.
 */
export const LOG_FILE = 'timeline-log.jsonl';

/** An exchange as the app saves it (timeline.json's kept ones, timeline-log.jsonl's lines): checked loosely. */
export const SavedEventSchema = z.looseObject({
  seq: z.number().int(),
  proxyId: z.string().min(1),
  method: z.string(),
  key: z.string(),
  request: z.looseObject({}),
  stream: z.array(z.unknown()),
  startedAt: z.number(),
  durationMs: z.number(),
});

/** Writes the exchanges, oldest first, one JSON line each (temp file + rename, 0600). */
export async function saveLog(dataDir: string, events: TrafficEvent[]): Promise<void> {
  const out = await openAtomicStream(dataDir, LOG_FILE, { mode: 0o600 });
  try {
    for (const event of events) await out.write(`${JSON.stringify(event)}\n`);
    await out.commit();
  } catch (error) {
    await out.abort();
    throw error;
  }
}

/** Forgets the saved log (Preserve log turned off). */
export function forgetLog(dataDir: string): void {
  rmSync(join(dataDir, LOG_FILE), { force: true });
}

/**
 * The exchanges of the saved log, oldest first (at most `maxBytes` of them, the newest kept); `skipped`: lines that
 * were not usable exchanges. A file over twice the cap is not read at all (it was not written by this app).
 */
export function loadLog(
  dataDir: string,
  maxBytes: number,
): { events: TrafficEvent[]; skipped: number; problem?: string } {
  const file = join(dataDir, LOG_FILE);
  let text: string;
  try {
    if (statSync(file).size > maxBytes * 2)
      return { events: [], skipped: 0, problem: `${file} is larger than twice the timeline's cap: not read` };
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { events: [], skipped: 0 };
    return { events: [], skipped: 0, problem: `cannot read ${file}: ${(error as Error).message}` };
  }
  const events: TrafficEvent[] = [];
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const parsed = SavedEventSchema.safeParse(parseJson(line));
      if (parsed.success) events.push(parsed.data as unknown as TrafficEvent);
      else skipped++;
    } catch {
      skipped++;
    }
  }
  events.sort((a, b) => a.seq - b.seq);
  let bytes = 0;
  let from = events.length;
  while (from > 0 && bytes + (events[from - 1].bytes ?? 0) <= maxBytes) bytes += events[--from].bytes ?? 0;
  return { events: events.slice(from), skipped };
}
