import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { TokenCounter } from '../../../shared/insight/cost.js';

/**
 * Token counts with a real tokenizer: gpt-tokenizer's o200k_base (the encoding of GPT-4o and later OpenAI models),
 * pure JavaScript. Other models' tokenizers (Claude's, Gemini's, Llama's) count the same text about 10–20% apart, so
 * the figures are a size, not a bill. Loaded on first use (its tables take ~0.3 s to load).
 */
export const TOKENIZER_ENCODING = 'o200k_base';

function tokenizerVersion(): string {
  try {
    const require = createRequire(import.meta.url);
    return (JSON.parse(readFileSync(require.resolve('gpt-tokenizer/package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '?';
  }
}

/** What the reports say they counted with: "o200k_base (gpt-tokenizer 4.0.0)". */
export const TOKENIZER_LABEL = `${TOKENIZER_ENCODING} (gpt-tokenizer ${tokenizerVersion()})`;

/** Counts of short texts seen lately (the same tool list and the same small results come back again and again). */
const MEMO_LIMIT = 4_000;
const MEMO_MAX_TEXT = 16 * 1024;

let loading: Promise<TokenCounter> | undefined;

export function loadTokenCounter(): Promise<TokenCounter> {
  loading ??= import('gpt-tokenizer/encoding/o200k_base').then((o200k) => {
    // traffic is text, never a prompt: "<|endoftext|>" in a result is counted as the characters it is, not refused
    const options = { disallowedSpecial: new Set<string>() };
    const countTokens = (text: string): number => o200k.countTokens(text, options);
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
