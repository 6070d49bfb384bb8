import type { Op } from './filter-keys.js';

export interface Token {
  /** the term as typed, `-` (or `!`) and quotes included */
  raw: string;
  start: number;
  end: number;
  negate: boolean;
  /** key and operator when the term has one (`status:`, `duration>=`) */
  key?: string;
  op?: Op;
  /** the value (quotes removed), or the whole text of a free-text term */
  value: string;
  /** the term's text without `-`/`!` and quotes (a term with an unknown key is searched as this text) */
  text: string;
  regex?: { source: string; flags: string };
}

const KEYED = /^([a-z][a-z-]*)(:|>=|<=|>|<|=)/i;

/** Splits a query into terms: whitespace separates them, except inside "quotes" and /regexes/; `-` or `!` negates. */
export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    while (i < text.length && /\s/.test(text[i])) i++;
    if (i >= text.length) break;
    const start = i;
    // `-` negates a term (DevTools' network filter), and `!` too, as people type it there all the same
    const negate = (text[i] === '-' || text[i] === '!') && i + 1 < text.length && !/\s/.test(text[i + 1]);
    if (negate) i++;
    if (text[i] === '/') {
      const close = findRegexEnd(text, i + 1);
      if (close > 0) {
        let end = close + 1;
        while (end < text.length && /[a-z]/i.test(text[end])) end++;
        if (end >= text.length || /\s/.test(text[end])) {
          out.push({
            raw: text.slice(start, end),
            start,
            end,
            negate,
            value: '',
            text: text.slice(i, end),
            regex: { source: text.slice(i + 1, close), flags: text.slice(close + 1, end) },
          });
          i = end;
          continue;
        }
      }
    }
    let value = '';
    while (i < text.length && !/\s/.test(text[i])) {
      if (text[i] === '"') {
        i++;
        for (; i < text.length && text[i] !== '"'; i++)
          value += text[i] === '\\' && i + 1 < text.length ? text[++i] : text[i];
        i++; // the closing quote
      } else value += text[i++];
    }
    const raw = text.slice(start, Math.min(i, text.length));
    const keyed = KEYED.exec(value);
    const quotedKey = raw.slice(negate ? 1 : 0).startsWith('"');
    const end = Math.min(i, text.length);
    if (keyed && !quotedKey)
      out.push({
        raw,
        start,
        end,
        negate,
        key: keyed[1].toLowerCase(),
        op: keyed[2] as Op,
        value: value.slice(keyed[0].length),
        text: value,
      });
    else out.push({ raw, start, end, negate, value, text: value });
  }
  return out;
}

function findRegexEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '/') return i > from ? i : -1;
  }
  return -1;
}
