import { hash16 } from '../fs/hash16.js';

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

/** What safeKey writes: its alphabet (`%` and `~` from its escapes), at most MAX_KEY_LENGTH long, never empty. */
const SAFE_KEY = new RegExp(`^[A-Za-z0-9_.%~-]{1,${MAX_KEY_LENGTH}}$`);

/** Can this key be part of a file name as it is (it is what safeKey writes: no separator, no control character, short)? */
const isSafeKey = (key: string): boolean => SAFE_KEY.test(key);

/**
 * The key as it becomes part of a file name — the one function every path built from a key goes through (names.ts
 * entryFileName), whatever the key came from: recording (already safe), an opened single-file cassette, a HAR, a
 * folder's file names, the API. A safe key is kept as it is (so a key recording wrote never changes, and `%2F` is not
 * encoded twice); any other is rewritten by safeKey — reversible percent-encoding, hashed beyond MAX_KEY_LENGTH —
 * which is what recording the same raw key would have written. Never empty: an empty key is refused.
 */
export function fileKey(key: string): string {
  if (isSafeKey(key)) return key;
  if (key === '') throw new Error('key: a cassette key cannot be empty');
  return safeKey(key);
}

function encodeChar(ch: string): string {
  try {
    return encodeURIComponent(ch).replace(/[!'()*~]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
  } catch {
    // a lone surrogate (invalid UTF-16) has no UTF-8 form: encode its code unit
    return '%u' + ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
  }
}
