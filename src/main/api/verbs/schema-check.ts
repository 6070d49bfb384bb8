import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/**
 * `schema.check`: a value against a tool's inputSchema with ajv (the validator the MCP SDK itself uses), configured as
 * the SDK configures it: lenient about the schema (unknown keywords, any draft's `$schema`), strict about the value,
 * every problem reported. Runs in the engine, not the renderer: ajv compiles schemas to functions, which the
 * renderer's Content-Security-Policy (no 'unsafe-eval') rightly forbids.
 */

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const OPTIONS = { strict: false, validateSchema: false, allErrors: true, validateFormats: true } as const;
/** draft-07 (what most MCP servers declare) and 2020-12 (zod 4's JSON Schema), picked by the schema's `$schema` */
const draft7 = addFormats(new Ajv(OPTIONS));
const draft2020 = addFormats(new Ajv2020(OPTIONS) as unknown as Ajv);
/** compiled schemas by their JSON (a form checks the same schema on every keystroke) */
const compiled = new Map<string, ValidateFunction>();
const CACHE_LIMIT = 200;

export interface SchemaProblem {
  /** where, as a dot/bracket path from the value's root ("" for the root itself) */
  path: string;
  message: string;
}

/** "/a/0/b" → "a[0].b" */
function readablePath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((out, part) => (/^\d+$/.test(part) ? `${out}[${part}]` : out ? `${out}.${part}` : part), '');
}

function describe(error: ErrorObject): SchemaProblem {
  const at = readablePath(error.instancePath);
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty;
    return { path: at ? `${at}.${missing}` : missing, message: 'required' };
  }
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params as { additionalProperty: string }).additionalProperty;
    return { path: at ? `${at}.${extra}` : extra, message: 'not a property the schema allows' };
  }
  if (error.keyword === 'enum') {
    const allowed = (error.params as { allowedValues: unknown[] }).allowedValues;
    return { path: at, message: `must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}` };
  }
  if (error.keyword === 'pattern') {
    const pattern = (error.params as { pattern: string }).pattern;
    return { path: at, message: pattern.length <= 40 ? `must match ${pattern}` : "must match the schema's pattern" };
  }
  return { path: at, message: error.message ?? error.keyword };
}

/** A value a `format` refuses (`email`) needs no second line for the `pattern` that spells the same (zod 4 writes both). */
function withoutEchoes(errors: ErrorObject[]): ErrorObject[] {
  const formats = new Set(errors.filter((e) => e.keyword === 'format').map((e) => e.instancePath));
  return errors.filter((e) => e.keyword !== 'pattern' || !formats.has(e.instancePath));
}

export function checkAgainstSchema(schema: Record<string, unknown>, value: unknown): SchemaProblem[] {
  const text = JSON.stringify(schema);
  let validate = compiled.get(text);
  if (!validate) {
    try {
      const { $id: _id, ...anonymous } = schema; // an $id would be registered once and clash with the next schema naming it
      const ajv = typeof schema.$schema === 'string' && schema.$schema.includes('2020-12') ? draft2020 : draft7;
      validate = ajv.compile(anonymous);
    } catch (error) {
      return [{ path: '', message: `the tool's input schema cannot be used: ${(error as Error).message}` }];
    }
    if (compiled.size >= CACHE_LIMIT) compiled.delete(compiled.keys().next().value as string);
    compiled.set(text, validate);
  }
  if (validate(value)) return [];
  const seen = new Set<string>();
  return withoutEchoes(validate.errors ?? [])
    .map(describe)
    .filter((p) => {
      const key = `${p.path}\u0000${p.message}`;
      return seen.has(key) ? false : (seen.add(key), true);
    });
}
