import { hash16 } from './hash.js';

/** Longest key kept verbatim in a file name; with `<n> ` and `.res-head.json` the name stays far below 255 bytes. */
export const MAX_KEY_LENGTH = 180;

/**
 * Makes a cache key safe as part of a file name on every OS, reversibly for normal names:
 * - A–Z a–z 0–9 `_` `-` `.` are kept (every valid MCP tool name is unchanged, so mcp-rewind's keys stay identical);
 * - every other character is percent-encoded as UTF-8 (`/` → `%2F`, NUL → `%00`, `%` → `%25`), so no path
 *   separator, control character or reserved character (`<>:"|?*\`) reaches the file system;
 * - a key longer than MAX_KEY_LENGTH is cut and suffixed with `~` + the first 16 hex of its SHA-256.
 * The file name always starts with `<n> ` and ends with `.json`, so it is never `.`/`..`, never hidden and never a
 * Windows device name (CON, NUL, …).
 */
export function safeKey(key: string): string {
  const encoded = key.replace(/[^A-Za-z0-9_.-]/gu, encodeChar);
  if (encoded.length <= MAX_KEY_LENGTH) return encoded;
  return encoded.slice(0, MAX_KEY_LENGTH - 17) + '~' + hash16(key);
}

function encodeChar(ch: string): string {
  try {
    return encodeURIComponent(ch).replace(/[!'()*~]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
  } catch {
    // a lone surrogate (invalid UTF-16) has no UTF-8 form: encode its code unit
    return '%u' + ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
  }
}
