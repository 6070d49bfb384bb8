/**
 * Large command frames over the web shell's WebSocket (src/main/web/ws-bridge.ts): a frame stays under
 * MAX_FRAME_BYTES, so a command whose JSON is bigger travels as parts `{ id, part, parts, bytes, data }` — the
 * command's JSON text cut into slices, joined again by the bridge — up to MAX_PAYLOAD_BYTES in all. The first part
 * says the whole size, so a payload over the limit is refused with that reason before the rest is read.
 */

/** one WebSocket frame, either way round (the bridge closes a connection that sends a bigger one: 1009) */
export const MAX_FRAME_BYTES = 1024 * 1024;
/** one command's JSON, all parts together */
export const MAX_PAYLOAD_BYTES = 64 * 1024 * 1024;
/** characters of the command's text per part: at most 3 UTF-8 bytes each (a `"` or `\` escapes to 2), under a frame */
export const PART_CHARS = 256 * 1024;

export interface PartFrame {
  id: number;
  /** 0 … parts-1, in order */
  part: number;
  parts: number;
  /** UTF-8 bytes of the whole command's text */
  bytes: number;
  data: string;
}

/** UTF-8 length of a string without encoding it (lone surrogates count 3, as TextEncoder writes U+FFFD) */
export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** 70.0 MB (1 MB = 1,048,576 bytes) */
export function megabytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return `${Number.isInteger(mb) ? mb : mb.toFixed(1)} MB`;
}

/** why a payload of this size is not sent, or undefined when it fits */
export function payloadRefusal(bytes: number): string | undefined {
  return bytes > MAX_PAYLOAD_BYTES
    ? `payload ${megabytes(bytes)} exceeds the ${megabytes(MAX_PAYLOAD_BYTES)} limit of the connection to mcp-rewind`
    : undefined;
}

/** The frames that carry one command's text: itself when it fits in one frame, else its parts. */
export function framesOf(id: number, text: string): string[] {
  if (text.length * 3 <= MAX_FRAME_BYTES) return [text];
  const bytes = utf8Bytes(text);
  if (bytes <= MAX_FRAME_BYTES) return [text];
  const parts = Math.ceil(text.length / PART_CHARS);
  const frames: string[] = [];
  for (let part = 0; part < parts; part++) {
    const data = text.slice(part * PART_CHARS, (part + 1) * PART_CHARS);
    frames.push(JSON.stringify({ id, part, parts, bytes, data } satisfies PartFrame));
  }
  return frames;
}
