import { haystack, type ExchangeLike } from './exchange-facts.js';
import { KEYS, keyDef, type KeyDef, type Predicate, type QueryContext } from './filter-keys.js';
import { tokenize, type Token } from './filter-tokens.js';

/**
 * The timeline's filter language, DevTools-style: `method:tools/call tool:echo,add status:error -source:cache
 * has:stream larger-than:10k duration>500 /time(out|d out)/ "free text"`. Terms are ANDed; `-` (or `!`) negates one; a comma
 * in a value means "any of"; `*` in a name is a wildcard; words without a key search the exchange's JSON. Pure: a
 * parser that compiles the text once into predicates, and the predicates.
 *
 * Adding a filter is one entry of KEYS; adding a `has:` value is one entry of HAS (both in filter-keys.ts); the
 * tokenizer is filter-tokens.ts.
 */

export {
  HAS,
  KEYS,
  keyDef,
  parseDuration,
  parseSize,
  parseTime,
  type KeyDef,
  type Op,
  type Predicate,
  type QueryContext,
} from './filter-keys.js';
export { tokenize, type Token } from './filter-tokens.js';

export interface QueryTerm {
  /** the term as typed */
  raw: string;
  negate: boolean;
  /** the filter's key, or undefined for free text and /regex/ */
  key?: string;
  test: Predicate;
}

export interface QueryProblem {
  term: string;
  message: string;
}

export interface ParsedQuery {
  terms: QueryTerm[];
  problems: QueryProblem[];
}

function textTerm(token: Token): QueryTerm {
  const needle = token.text.toLowerCase();
  return { raw: token.raw, negate: token.negate, test: (e) => haystack(e).includes(needle) };
}

/** One keyed term: its predicate (values separated by commas: any of them), or the problem with it. */
function keyedTerm(token: Token, def: KeyDef): QueryTerm | QueryProblem {
  const op = token.op ?? ':';
  if (def.compares ? op === ':' || op === '=' : op !== ':') {
    return {
      term: token.raw,
      message: def.compares
        ? `${def.name}: compare with >, >=, < or <= (${def.name}>500)`
        : `${def.name}: write ${def.name}:value`,
    };
  }
  const tests: Predicate[] = [];
  for (const part of def.compares ? [token.value] : token.value.split(',').filter(Boolean)) {
    const compiled = def.compile(part, op);
    if (typeof compiled !== 'function')
      return { term: token.raw, message: `${def.name}:${part} — expected ${compiled.problem}` };
    tests.push(compiled);
  }
  const test: Predicate = tests.length === 1 ? tests[0] : (e, ctx) => tests.some((t) => t(e, ctx));
  return { raw: token.raw, negate: token.negate, key: def.name, test };
}

/** Edits (insert, delete, change a letter) from one word to another: a typo of a key is a few away from it. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length];
}

/**
 * `tol:echo` is no filter: it is searched as text, and said (a typo of a key finds nothing, silently otherwise).
 * A URL (`http://host`) and a key still being typed (`tol:`) are not said.
 */
function unknownKey(token: Token): QueryProblem | undefined {
  if (token.value === '' || token.value.startsWith('//')) return undefined;
  const key = token.key ?? '';
  const typos = key.length >= 5 ? 2 : 1;
  const near = KEYS.map((k) => k.name).find(
    (name) => (key.length >= 2 && name.startsWith(key)) || editDistance(key, name) <= typos,
  );
  const op = token.op ?? ':';
  return {
    term: token.raw,
    message: `${key}${op} is not a filter${near ? ` (did you mean ${near}${op}?)` : ''} — searched as text`,
  };
}

/**
 * Compiles a query into its terms; what cannot be used is said in `problems` (and left out of the match), and so is
 * a term with an unknown key (searched as text).
 */
export function parseQuery(text: string): ParsedQuery {
  const terms: QueryTerm[] = [];
  const problems: QueryProblem[] = [];
  for (const token of tokenize(text)) {
    if (token.regex) {
      try {
        const re = new RegExp(
          token.regex.source,
          token.regex.flags.includes('i') ? token.regex.flags : `${token.regex.flags}i`,
        );
        terms.push({ raw: token.raw, negate: token.negate, test: (e) => re.test(haystack(e)) });
      } catch (error) {
        problems.push({ term: token.raw, message: `not a regular expression: ${(error as Error).message}` });
      }
      continue;
    }
    const def = token.key === undefined ? undefined : keyDef(token.key);
    if (!def) {
      if (token.text) terms.push(textTerm(token)); // "http://host" is text, as is anything with an unknown key
      const unknown = token.key === undefined ? undefined : unknownKey(token);
      if (unknown) problems.push(unknown);
      continue;
    }
    if (token.value === '') continue; // a key still being typed (`status:`) filters nothing yet
    const term = keyedTerm(token, def);
    if ('test' in term) terms.push(term);
    else problems.push(term);
  }
  return { terms, problems };
}

export function matchQuery(query: ParsedQuery, e: ExchangeLike, ctx: QueryContext): boolean {
  for (const term of query.terms) if (term.test(e, ctx) === term.negate) return false;
  return true;
}

/** The query with every term of these keys taken out and `terms` added at the end (a chart click sets its range). */
export function withTerms(text: string, keys: string[], terms: string[]): string {
  const drop = new Set(keys);
  const kept = tokenize(text)
    .filter((t) => t.key === undefined || !drop.has(t.key) || t.negate)
    .map((t) => t.raw);
  return [...kept, ...terms].join(' ');
}

/** A time as the after:/before: filters read it: the time of day, or the date too when `withDate`. */
export function timeTerm(at: number, withDate: boolean): string {
  const d = new Date(at);
  const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
  return withDate ? `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${time}` : time;
}
