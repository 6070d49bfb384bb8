/**
 * Text aimed at the model rather than the user: hidden characters (Unicode tag characters, bidi overrides,
 * zero-width and other invisible formatting) and instruction-like phrases (the documented pattern list below, tested
 * in test/insight/poisoning.test.ts and listed in docs/insight.md). Pure string functions.
 */
import { finding, type Finding } from './findings.js';

/** Where a string is, built only when a finding needs it (most strings have none). */
export type PathOf = () => string;

const segment = (k: string): string => (/^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`);

/** Calls `visit` for every string inside a JSON value, with its path (built on demand) and the key that holds it. */
export function walkStrings(
  value: unknown,
  path: string | PathOf,
  visit: (path: PathOf, text: string, key: string) => void,
): void {
  const walk = (v: unknown, at: PathOf, key: string, depth: number): void => {
    if (typeof v === 'string') return visit(at, v, key);
    if (depth > 64 || v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) walk(v[i], () => `${at()}[${i}]`, key, depth + 1);
      return;
    }
    for (const k in v as Record<string, unknown>)
      if (Object.hasOwn(v, k)) walk((v as Record<string, unknown>)[k], () => at() + segment(k), k, depth + 1);
  };
  walk(value, typeof path === 'string' ? () => path : path, '', 0);
}

/** any character one of the checks below is about: most strings have none, and one scan tells */
const SUSPECT =
  /[\u202A-\u202E\u2066-\u2069\u200B-\u200D\u2060-\u2064\uFEFF\u00AD\u180E\uFFF9-\uFFFB]|\uDB40[\uDC00-\uDC7F]/; // no `u` flag: 4× faster; tags are U+DB40 U+DC00–DC7F
const TAGS = /[\u{E0000}-\u{E007F}]/u;
const BIDI = /[\u202A-\u202E\u2066-\u2069]/;
const INVISIBLE_CHARS = '[\\u200B-\\u200D\\u2060-\\u2064\\uFEFF\\u00AD\\u180E\\uFFF9-\\uFFFB]';
const INVISIBLE = new RegExp(INVISIBLE_CHARS);
const NON_ASCII_VISIBLE = /[^\p{ASCII}\u200B-\u200D\u2060-\u2064\uFEFF]/u;

/** The ASCII text that Unicode tag characters spell (U+E0020–U+E007E mirror U+0020–U+007E). */
export function decodeTags(text: string): string {
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0) as number;
    if (cp >= 0xe0020 && cp <= 0xe007e) out += String.fromCodePoint(cp - 0xe0000);
  }
  return out;
}

const codes = (chars: Iterable<string>): string =>
  [...new Set(chars)]
    .map((c) => `U+${(c.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}`)
    .join(', ');

/** Invisible characters that are not part of an emoji sequence (ZWJ) or of a non-Latin script's spelling (ZWNJ). */
function strayInvisibles(text: string, strict: boolean): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(new RegExp(INVISIBLE_CHARS, 'g'))) {
    const at = m.index;
    const ch = m[0];
    if (!strict && ch === '\uFEFF' && at === 0) continue; // a byte order mark
    if (!strict && (ch === '\u200D' || ch === '\u200C')) {
      const around = text.slice(Math.max(0, at - 2), at) + text.slice(at + 1, at + 3);
      if (NON_ASCII_VISIBLE.test(around)) continue; // 👨‍👩‍👧, Persian, Indic scripts
    }
    found.push(ch);
  }
  return found;
}

/** Hidden-text findings of one string; `strict` for names, where nothing invisible belongs. */
export function hiddenText(text: string, path: string, strict: boolean): Finding[] {
  if (!SUSPECT.test(text)) return [];
  const out: Finding[] = [];
  if (TAGS.test(text)) {
    const hidden = decodeTags(text);
    out.push(
      finding(
        'security.hidden-text',
        path,
        'Unicode tag characters: text invisible to the user that a model reads',
        hidden ? `hidden text: ${JSON.stringify(hidden)}` : undefined,
      ),
    );
  }
  if (BIDI.test(text))
    out.push(
      finding(
        'security.hidden-text',
        path,
        `bidirectional override characters (${codes(text.match(new RegExp(BIDI.source, 'g')) ?? [])}): what is shown is not what is read`,
      ),
    );
  const stray = INVISIBLE.test(text) ? strayInvisibles(text, strict) : [];
  if (stray.length > 0) {
    const message = `${stray.length} zero-width or invisible character${stray.length === 1 ? '' : 's'} (${codes(stray)})`;
    out.push(
      strict
        ? finding('security.hidden-text', path, `${message} in a name`)
        : finding('security.zero-width', path, message),
    );
  }
  return out;
}

/**
 * Instruction-like text aimed at the model: each pattern names what it catches. Deliberately few and specific — a
 * warning to look, not a verdict — and each one is tested on a poisoned and a harmless description.
 */
export const INSTRUCTION_PATTERNS: ReadonlyArray<{ name: string; re: RegExp }> = [
  {
    name: 'ignore previous instructions',
    re: /\b(ignore|disregard|forget)\s+(all\s+|any\s+)?(the\s+|your\s+)?(previous|prior|above|earlier|preceding)\s+(instructions|prompts?|messages|rules|directions)/i,
  },
  {
    name: 'an <IMPORTANT> (or <SYSTEM>, <INSTRUCTIONS>) block',
    re: /<\s*\/?\s*(important|system|instructions?|secret|hidden)\s*>/i,
  },
  {
    name: 'keep it from the user',
    re: /\b(do\s+not|don['’]t|never|without)\s+(tell(ing)?|inform(ing)?|mention(ing)?|reveal(ing)?|show(ing)?|alert(ing)?|notify(ing)?)\b.{0,40}\b(the\s+)?user\b/i,
  },
  {
    name: 'read a sensitive file',
    re: /\b(read|cat|open|load|include|attach|upload|send)\b.{0,60}(~\/\.ssh|id_rsa|id_ed25519|\.env\b|\.aws\/credentials|\/etc\/(passwd|shadow)|mcp\.json|\.cursor\/|\.npmrc|\.netrc|\.git-credentials)/i,
  },
  {
    name: 'send secrets',
    re: /\b(send|pass|include|forward|post|upload|exfiltrate|append|leak)\b.{0,60}\b(api[\s_-]?keys?|secrets?|access[\s_-]?tokens?|passwords?|credentials|private[\s_-]keys?|ssh[\s_-]keys?)\b/i,
  },
  {
    name: 'a new role or new instructions',
    re: /\b(you\s+are\s+now|from\s+now\s+on,?\s+you|your\s+new\s+(instructions|task|role)|new\s+system\s+prompt|override\s+(the\s+)?system\s+prompt)\b/i,
  },
  {
    name: 'a side effect before the call',
    re: /\bbefore\s+(using|calling|running)\s+(this|any|the)\s+tool\b.{0,80}\b(read|call|send|fetch|include|pass|run)\b/i,
  },
];

/**
 * A word at least one pattern needs: one scan of the text rules most texts out before the patterns run. Each pattern
 * above contains one of these (test/insight/tokens-poisoning.test.ts checks that every poisoned fixture passes it).
 */
const TRIGGER =
  /ignore|disregard|forget|<\s*\/?\s*(important|system|instructions?|secret|hidden)\s*>|\bdo\s+not\b|\bdon['’]t\b|\bnever\b|\bwithout\b|~\/|id_rsa|id_ed25519|\.env\b|\.aws|\/etc\/|mcp\.json|\.cursor|\.npmrc|\.netrc|\.git-credentials|api[\s_-]?keys?|secret|token|password|credential|private[\s_-]key|ssh[\s_-]key|you\s+are\s+now|from\s+now\s+on|your\s+new|system\s+prompt|before\s+(using|calling|running)/; // on lower-cased text: a case-sensitive scan is faster

/** Does a text hold a word one of the patterns needs? (texts seen lately are remembered: lists and results repeat) */
const triggered = new Map<string, boolean>();
const TRIGGER_MEMO = 2_000;
function hasTrigger(text: string): boolean {
  const known = text.length <= 4096 ? triggered.get(text) : undefined;
  if (known !== undefined) return known;
  const found = TRIGGER.test(text.toLowerCase());
  if (text.length <= 4096) {
    if (triggered.size >= TRIGGER_MEMO) triggered.delete(triggered.keys().next().value as string);
    triggered.set(text, found);
  }
  return found;
}

/** Instruction-like findings of one string (`where`: a description, a result… for the message). */
export function instructionLike(text: string, path: string, where: string): Finding[] {
  if (!hasTrigger(text)) return [];
  const matched = INSTRUCTION_PATTERNS.filter((p) => p.re.test(text));
  if (matched.length === 0) return [];
  const first = matched[0].re.exec(text);
  const quote = first
    ? text.slice(Math.max(0, first.index - 20), first.index + first[0].length + 20).replace(/\s+/g, ' ')
    : '';
  return [
    finding(
      'security.instructions',
      path,
      `${where} holds instruction-like text: ${matched.map((m) => m.name).join('; ')}`,
      quote ? `…${quote}…` : undefined,
    ),
  ];
}

/** Keys whose strings are names: nothing invisible belongs in them. */
const NAME_KEYS = new Set(['name', 'uri', 'uriTemplate', 'method']);

/** Hidden text and instruction-like text anywhere in a value (a result, a tool list). */
export function scanText(value: unknown, path: string, where: string): Finding[] {
  const out: Finding[] = [];
  walkStrings(value, path, (at, text, key) => {
    const strict = NAME_KEYS.has(key);
    const suspect = SUSPECT.test(text);
    const trigger = !strict && text.length >= 12 && hasTrigger(text);
    if (!suspect && !trigger) return;
    const where_ = at();
    if (suspect) out.push(...hiddenText(text, where_, strict));
    if (trigger) out.push(...instructionLike(text, where_, where));
  });
  return out;
}
