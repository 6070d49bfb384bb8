import type { ConfigFormat } from '../../shared/intercept.js';

/** A value to write: source text kept as it was (`raw`, for a restore), or a value the format serialises. */
export type NewValue = { raw: string } | { value: unknown };

/**
 * A client's config file, parsed, with edits that touch only what they change: every other byte — comments, blank
 * lines, key order, formatting — stays as it was. JSON and JSONC through jsonc-parser (VS Code's own), TOML through
 * toml-eslint-parser's source ranges.
 */
export interface ConfigDoc {
  readonly text: string;
  readonly format: ConfigFormat;
  /** the whole file as data */
  readonly value: unknown;
  /** the source text of the value at `path`, undefined when there is none */
  raw(path: string[]): string | undefined;
  /** the text with the value at `path` replaced, added (its parent must exist) or, for undefined, removed */
  set(path: string[], value: NewValue | undefined): string;
}

/** A file that cannot be read as its format: listed with the reason, never written. */
export class MalformedConfig extends Error {
  override readonly name = 'MalformedConfig';
}

/** line:column (1-based) of an offset, for error messages */
export function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return `line ${line}, column ${offset - before.lastIndexOf('\n')}`;
}
