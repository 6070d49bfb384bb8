import { MAX_PAYLOAD_BYTES, PART_CHARS, payloadRefusal, type PartFrame } from '../../shared/api-frames.js';

/** every upload of one connection together (two payloads of the limit at once; a third waits for its turn) */
const MAX_HELD_CHARS = 2 * MAX_PAYLOAD_BYTES;

interface Upload {
  parts: number;
  next: number;
  slices: string[];
  chars: number;
  /** refused at its first part: what follows is read and dropped */
  refused: boolean;
}

export type Assembled = { text: string } | { problem: string } | undefined;

/** a parsed object that is a part of a large command (src/shared/api-frames.ts) */
export function isPart(frame: Record<string, unknown>): boolean {
  return 'part' in frame && 'parts' in frame && 'data' in frame;
}

function partProblem(frame: Record<string, unknown>): string | undefined {
  const { part, parts, bytes, data } = frame;
  if (!Number.isSafeInteger(part) || !Number.isSafeInteger(parts) || (part as number) < 0)
    return 'malformed part: "part" and "parts" must be integers';
  if ((part as number) >= (parts as number)) return 'malformed part: "part" must be below "parts"';
  if (typeof data !== 'string' || data.length > PART_CHARS)
    return `malformed part: "data" must be a string of at most ${PART_CHARS} characters`;
  if (typeof bytes !== 'number' || !Number.isSafeInteger(bytes) || bytes < 0)
    return 'malformed part: "bytes" must be the byte size of the whole command';
  return undefined;
}

/** One connection's large commands, joined from their parts in order. */
export class PartAssembler {
  private readonly uploads = new Map<number, Upload>();
  private held = 0;

  /** the whole command's text once its last part came, a problem to answer (once per upload), or undefined */
  add(id: number, frame: Record<string, unknown>): Assembled {
    const problem = partProblem(frame);
    if (problem) return this.fail(id, problem);
    const { part, parts, bytes, data } = frame as unknown as PartFrame;
    let upload = this.uploads.get(id);
    if (part === 0) {
      if (upload) return this.fail(id, `malformed part: command ${id} is already being sent`);
      const refusal =
        payloadRefusal(bytes) ??
        (parts * PART_CHARS < bytes / 3 ? 'malformed part: too few parts for its size' : undefined);
      upload = { parts, next: 0, slices: [], chars: 0, refused: refusal !== undefined };
      this.uploads.set(id, upload);
      if (refusal) return this.finish(id, upload, { problem: refusal });
    }
    if (!upload) return { problem: `malformed part: part ${part} of command ${id}, which did not start` };
    if (upload.refused) return this.finish(id, upload, undefined);
    if (part !== upload.next || parts !== upload.parts)
      return this.fail(id, `malformed part: part ${part} out of order`);
    upload.next++;
    upload.chars += data.length;
    this.held += data.length;
    if (upload.chars > MAX_PAYLOAD_BYTES) return this.fail(id, payloadRefusal(upload.chars + 1) as string);
    if (this.held > MAX_HELD_CHARS)
      return this.fail(id, `too much being sent at once (over ${MAX_HELD_CHARS} characters): send it again later`);
    upload.slices.push(data);
    return this.finish(id, upload, part === parts - 1 ? { text: upload.slices.join('') } : undefined);
  }

  clear(): void {
    this.uploads.clear();
    this.held = 0;
  }

  private finish(id: number, upload: Upload, outcome: Assembled): Assembled {
    const last = upload.refused ? upload.next++ === upload.parts - 1 : outcome !== undefined;
    if (last) this.drop(id);
    return outcome;
  }

  private fail(id: number, problem: string): Assembled {
    const upload = this.uploads.get(id);
    if (upload) {
      this.held -= upload.chars;
      upload.slices = [];
      upload.chars = 0;
      upload.refused = true; // its remaining parts are dropped, the problem said once
    }
    return { problem };
  }

  private drop(id: number): void {
    const upload = this.uploads.get(id);
    if (!upload) return;
    this.held -= upload.chars;
    this.uploads.delete(id);
  }
}
