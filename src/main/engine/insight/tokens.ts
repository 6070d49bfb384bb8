import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { TokenCounter } from '../../../shared/insight/cost.js';

/**
 * Token counts with a real tokenizer: gpt-tokenizer's o200k_base (the encoding of GPT-4o and later OpenAI models),
 * pure JavaScript. Other models' tokenizers (Claude's, Gemini's, Llama's) count the same text about 10–20% apart, so
 * the figures are a size, not a bill. Loaded on first use (its tables take ~0.3 s to load).
 */
const TOKENIZER_ENCODING = 'o200k_base';

function tokenizerVersion(): string {
  try {
    const require = createRequire(import.meta.url);
    return (JSON.parse(readFileSync(require.resolve('gpt-tokenizer/package.json'), 'utf8')) as { version: string })
      .version;
  } catch {
    return '?';
  }
}

/** What the reports say they counted with: "o200k_base (gpt-tokenizer 4.0.0)". */
export const TOKENIZER_LABEL = `${TOKENIZER_ENCODING} (gpt-tokenizer ${tokenizerVersion()})`;

/** Counts of short texts seen lately (the same tool list and the same small results come back again and again). */
const MEMO_LIMIT = 4_000;
const MEMO_MAX_TEXT = 16 * 1024;

/** pieces are counted apart: cut at a space (where the tokenizer cuts anyway) within the last CUT_WINDOW characters */
const CHUNK = 4096;
const CUT_WINDOW = 256;
/**
 * A run without any space is cut much shorter: byte-pair merging is quadratic in the length of a run (64,000 "x"
 * take 24 s in one piece), and such runs (base64, minified data) are not prose whose exact count matters.
 */
const RUN = 400;
/** letters the tokenizer's pre-split keeps together (digits go in threes, punctuation apart) */
const LONG_RUN = /[\p{L}\p{M}]{401}/u;

/** The text in the pieces it is counted in (their counts add up to the whole's, up to a token at a cut inside a run). */
export function* chunksOf(text: string): Generator<string> {
  let at = 0;
  while (at < text.length) {
    const end = Math.min(text.length, at + CHUNK);
    let cut = end;
    if (end < text.length) {
      const space = text.lastIndexOf(' ', end);
      cut = space > at && space > end - CUT_WINDOW ? space : end;
    }
    const piece = text.slice(at, cut);
    if (LONG_RUN.test(piece)) for (let i = 0; i < piece.length; i += RUN) yield piece.slice(i, i + RUN);
    else yield piece;
    at = cut;
  }
}

let loading: Promise<TokenCounter> | undefined;
let piece: TokenCounter | undefined;

/** Counts one piece of chunksOf (loadTokenCounter first): the observer counts a large text a piece per turn. */
export const countPiece = (text: string): number => (piece as TokenCounter)(text);

export function loadTokenCounter(): Promise<TokenCounter> {
  loading ??= import('gpt-tokenizer/encoding/o200k_base').then((o200k) => {
    // traffic is text, never a prompt: "<|endoftext|>" in a result is counted as the characters it is, not refused
    const options = { disallowedSpecial: new Set<string>() };
    const one = (text: string): number => o200k.countTokens(text, options);
    piece = one;
    const countTokens = (text: string): number => {
      if (text.length <= CHUNK && !LONG_RUN.test(text)) return one(text);
      let sum = 0;
      for (const part of chunksOf(text)) sum += one(part);
      return sum;
    };
    const memo = new Map<string, number>();
    return (text: string): number => {
      if (text.length > MEMO_MAX_TEXT) return countTokens(text);
      const known = memo.get(text);
      if (known !== undefined) return known;
      const counted = countTokens(text);
      if (memo.size >= MEMO_LIMIT) memo.delete(memo.keys().next().value as string);
      memo.set(text, counted);
      return counted;
    };
  });
  return loading;
}
