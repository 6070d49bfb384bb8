/**
 * Names from the wire (tools, methods, clients, keys…) shown as what they are: a bidi control or an invisible
 * character in a name is shown as a visible mark, so `evil\u202Egnp.exe` reads as `evil⟨U+202E⟩gnp.exe`, never as
 * "evilexe.png". Pure.
 */

const NAMES: Record<number, string> = {
  0x00ad: 'SOFT HYPHEN',
  0x034f: 'COMBINING GRAPHEME JOINER',
  0x061c: 'ARABIC LETTER MARK',
  0x115f: 'HANGUL CHOSEONG FILLER',
  0x1160: 'HANGUL JUNGSEONG FILLER',
  0x17b4: 'KHMER VOWEL INHERENT AQ',
  0x17b5: 'KHMER VOWEL INHERENT AA',
  0x180e: 'MONGOLIAN VOWEL SEPARATOR',
  0x200b: 'ZERO WIDTH SPACE',
  0x200c: 'ZERO WIDTH NON-JOINER',
  0x200d: 'ZERO WIDTH JOINER',
  0x200e: 'LEFT-TO-RIGHT MARK',
  0x200f: 'RIGHT-TO-LEFT MARK',
  0x2028: 'LINE SEPARATOR',
  0x2029: 'PARAGRAPH SEPARATOR',
  0x202a: 'LEFT-TO-RIGHT EMBEDDING',
  0x202b: 'RIGHT-TO-LEFT EMBEDDING',
  0x202c: 'POP DIRECTIONAL FORMATTING',
  0x202d: 'LEFT-TO-RIGHT OVERRIDE',
  0x202e: 'RIGHT-TO-LEFT OVERRIDE',
  0x2060: 'WORD JOINER',
  0x2061: 'FUNCTION APPLICATION',
  0x2062: 'INVISIBLE TIMES',
  0x2063: 'INVISIBLE SEPARATOR',
  0x2064: 'INVISIBLE PLUS',
  0x2066: 'LEFT-TO-RIGHT ISOLATE',
  0x2067: 'RIGHT-TO-LEFT ISOLATE',
  0x2068: 'FIRST STRONG ISOLATE',
  0x2069: 'POP DIRECTIONAL ISOLATE',
  0x3164: 'HANGUL FILLER',
  0xfeff: 'ZERO WIDTH NO-BREAK SPACE',
  0xffa0: 'HALFWIDTH HANGUL FILLER',
};

/** code point ranges shown as marks: control characters (C0, DEL, C1), the listed invisible and bidi characters, tags */
const HIDDEN_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x0000, 0x001f],
  [0x007f, 0x009f],
  [0x00ad, 0x00ad],
  [0x034f, 0x034f],
  [0x061c, 0x061c],
  [0x115f, 0x1160],
  [0x17b4, 0x17b5],
  [0x180e, 0x180e],
  [0x200b, 0x200f],
  [0x2028, 0x202e],
  [0x2060, 0x2064],
  [0x2066, 0x206f],
  [0x3164, 0x3164],
  [0xfeff, 0xfeff],
  [0xffa0, 0xffa0],
  [0xe0000, 0xe007f],
];

const isHidden = (code: number): boolean => HIDDEN_RANGES.some(([from, to]) => code >= from && code <= to);

/** U+202E */
export function codePointLabel(char: string): string {
  return `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** "U+202E RIGHT-TO-LEFT OVERRIDE", "U+0007 (a control character)" */
export function describeChar(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  const name =
    NAMES[code] ??
    (code < 0x20 || (code >= 0x7f && code <= 0x9f) ? '(a control character)' : '(an invisible character)');
  return `${codePointLabel(char)} ${name}`;
}

export function hasHidden(text: string): boolean {
  for (const char of text) if (isHidden(char.codePointAt(0) ?? 0)) return true;
  return false;
}

/** A part of a name: plain text, or one hidden character to show as a mark. */
export type NamePart = { text: string } | { hidden: string };

/** The name cut into plain runs and hidden characters (one part when nothing is hidden). */
export function nameParts(text: string): NamePart[] {
  if (!hasHidden(text)) return [{ text }];
  const parts: NamePart[] = [];
  let run = '';
  for (const char of text) {
    if (!isHidden(char.codePointAt(0) ?? 0)) {
      run += char;
      continue;
    }
    if (run) parts.push({ text: run });
    run = '';
    parts.push({ hidden: char });
  }
  if (run) parts.push({ text: run });
  return parts;
}

/** The name as plain text with each hidden character written as ⟨U+202E⟩ (for option labels, titles, exports). */
export function visibleName(text: string): string;
export function visibleName(text: string | undefined): string | undefined;
export function visibleName(text: string | undefined): string | undefined {
  if (text === undefined || !hasHidden(text)) return text;
  return nameParts(text)
    .map((part) => ('text' in part ? part.text : `⟨${codePointLabel(part.hidden)}⟩`))
    .join('');
}
