/**
 * Depth-limited JSON. `JSON.parse` itself takes any nesting, but everything after it that walks the value — hashing,
 * redaction, `JSON.stringify`, schema checks, the UI's tree — recurses, and 100,000 nested arrays blow the stack
 * (a RangeError: an HTTP 500, a file that half-opened). So every input is measured before it is parsed, with a linear
 * scan that costs nothing to refuse hostile nesting, and refused with a clear error.
 */

/** What a request on the wire may nest (the JSON-RPC envelope included): nothing in MCP nests this deep. */
export const MAX_JSON_DEPTH = 128;

/**
 * What a file (a cassette entry, a single-file cassette, a HAR, the app's own state) or a message of the UI's API may
 * nest: deeper than the wire, since a recorded answer sits inside a file's own structure and servers' results are
 * not bounded by the request limit; far below what the engine's recursive walks survive.
 */
export const MAX_FILE_JSON_DEPTH = 1_000;

/** Depth of brackets outside strings (a linear scan); stops counting once past `limit`. */
export function jsonDepth(text: string, limit = Infinity): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash escapes the next char
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max && (max = depth) > limit) return max;
    } else if (c === 125 || c === 93) depth--;
  }
  return max;
}

export class JsonDepthError extends Error {
  constructor(readonly limit: number) {
    super(`JSON nested deeper than ${limit} levels`);
    this.name = 'JsonDepthError';
  }
}

/** Does the text hold more than `limit` opening brackets? (native indexOf: far cheaper than the scan, which only then runs) */
function manyBrackets(text: string, limit: number): boolean {
  let opens = 0;
  for (const bracket of ['[', '{']) {
    for (let at = text.indexOf(bracket); at !== -1; at = text.indexOf(bracket, at + 1))
      if (++opens > limit) return true;
  }
  return false;
}

/**
 * Is this text nested deeper than `limit`? Nesting needs an opening bracket per level, so a text shorter than twice the
 * limit, or with no more opening brackets than the limit (strings included), is not scanned at all.
 */
export const tooDeep = (text: string, limit: number): boolean =>
  text.length > 2 * limit && manyBrackets(text, limit) && jsonDepth(text, limit) > limit;

/** JSON.parse, refusing nesting deeper than `limit` (JsonDepthError) before parsing; a SyntaxError as JSON.parse throws it. */
export function parseJson(text: string, limit = MAX_FILE_JSON_DEPTH): unknown {
  if (tooDeep(text, limit)) throw new JsonDepthError(limit);
  return JSON.parse(text);
}
