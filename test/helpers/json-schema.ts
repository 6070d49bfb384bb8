import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

/** The JSON Schemas of the package's schemas/ folder (what editors validate against), compiled with Ajv (draft 2020-12). */
export const SCHEMAS_DIR = new URL('../../schemas/', import.meta.url);

export function loadSchema(name: string, dir: URL | string = SCHEMAS_DIR): Record<string, unknown> {
  const base = typeof dir === 'string' ? new URL(`file://${dir.endsWith('/') ? dir : `${dir}/`}`) : dir;
  return JSON.parse(readFileSync(new URL(name, base), 'utf8')) as Record<string, unknown>;
}

export interface SchemaCheck {
  validate: ValidateFunction;
  /** undefined when the data is valid, else Ajv's errors in one line */
  problem(data: unknown): string | undefined;
}

export function compileSchema(schema: Record<string, unknown>): SchemaCheck {
  // strictRequired would refuse the (valid) `not: { required: [text, content] }` of override responses
  const validate = new Ajv2020({ strict: true, strictRequired: false, allErrors: true }).compile(schema);
  return {
    validate,
    problem: (data) =>
      validate(data)
        ? undefined
        : (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message}`).join('; '),
  };
}
