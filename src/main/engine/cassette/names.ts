import { fileKey } from './safe-name.js';

/**
 * The one owner of the cassette's file-name pattern (mcp-rewind's layout): `<n> <key>.json` (the distilled entry,
 * what replay needs) and its debug siblings `<n> <key>.req.json`, `.res.json`, `.res-head.json`. mcp-rewind also
 * writes key-less debug files (`<n>.req.json`) for requests it does not cache: they count for the numbering only.
 */
const CASSETTE_FILE = /^(\d+)(?: (.+?))?(\.req|\.res|\.res-head)?\.json$/;

const DEBUG_SUFFIXES = ['.req.json', '.res.json', '.res-head.json'] as const;

export type CassetteFileKind = 'entry' | 'req' | 'res' | 'res-head';

export interface CassetteFileName {
  /** the sequence number */
  n: number;
  /** undefined for mcp-rewind's key-less debug files */
  key?: string;
  kind: CassetteFileKind;
  /** `<n> <key>` (or `<n>`): the name without its suffix, shared by an exchange's four files */
  stem: string;
}

/** What a file name says, or undefined when it is not a cassette file (never touched, never counted). */
export function parseCassetteName(name: string): CassetteFileName | undefined {
  const m = CASSETTE_FILE.exec(name);
  if (!m) return undefined;
  const n = Number(m[1]);
  const kind: CassetteFileKind = m[3] === undefined ? 'entry' : (m[3].slice(1) as CassetteFileKind);
  if (kind === 'entry' && m[2] === undefined) return undefined; // `<n>.json` is nobody's
  return { n, key: m[2], kind, stem: m[2] === undefined ? m[1] : `${m[1]} ${m[2]}` };
}

/** The stem shared by an exchange's files, `<n> <key>`. */
export const stemOf = (n: number, key: string): string => `${n} ${key}`;

/**
 * The name a new distilled entry is written under, `<n> <key>.json`, the key made file-name safe (safe-name.ts fileKey:
 * kept when it already is, else escaped): whatever a key came from, the name is a plain name inside the folder.
 */
export const entryFileName = (n: number, key: string): string => `${stemOf(n, fileKey(key))}.json`;

/** The stem of an entry file (`<n> <key>`). */
export const stemOfEntry = (file: string): string => file.slice(0, -'.json'.length);

/** The debug files of an exchange. */
export const debugFileNames = (stem: string): string[] => DEBUG_SUFFIXES.map((suffix) => stem + suffix);

/** Is this the name of a distilled entry (not a debug file)? */
export const isEntryFile = (name: string): boolean => parseCassetteName(name)?.kind === 'entry';
