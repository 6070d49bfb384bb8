import { z } from 'zod';
import {
  ANSWER_FIELDS,
  CassetteEntryFileSchema,
  ToolCallEntryFileSchema,
  WrappedEntryFileSchema,
} from './cassette/entry.js';
import { OverrideResponseSchema, RulesFileSchema } from './rules/schema.js';
import { CASSETTE_ENTRY_SCHEMA_URL, RULES_SCHEMA_URL } from './schema-urls.js';

/**
 * The JSON Schemas published in the package's schemas/ folder (npm run build writes them), generated from the zod
 * schemas that the engine itself validates with, so editors check hand edits by the same rules. `io: 'input'`:
 * what a file may contain (fields with defaults are optional). Refinements zod cannot express are added here.
 */
export function jsonSchemas(): Record<string, Record<string, unknown>> {
  return {
    'cassette-entry.schema.json': describe(
      CASSETTE_ENTRY_SCHEMA_URL,
      'mcp-rewind cassette entry',
      "A distilled cassette file `<n> <key>.json`: a `$rewind` entry, a tools/call entry, or the bare JSON-RPC result (mcp-rewind's format for initialize and the first page of the list methods).",
      CassetteEntryFileSchema,
    ),
    'rules.schema.json': describe(
      RULES_SCHEMA_URL,
      'mcp-rewind rules file',
      "Per-tool rules (relay / override / inject) for `mcp-rewind --rules <file>`, in MiMCP's shapes.",
      RulesFileSchema,
    ),
  };
}

function describe(id: string, title: string, description: string, schema: z.ZodType): Record<string, unknown> {
  const { $schema, ...rest } = z.toJSONSchema(schema, {
    io: 'input',
    override: ({ zodSchema, jsonSchema }) => {
      if (zodSchema === OverrideResponseSchema) jsonSchema.not = { required: ['text', 'content'] }; // "either text or content"
      if (zodSchema === WrappedEntryFileSchema)
        jsonSchema.anyOf = ANSWER_FIELDS.wrapped.map((field) => ({ required: [field] })); // an answer of some kind
      if (zodSchema === ToolCallEntryFileSchema)
        jsonSchema.anyOf = ANSWER_FIELDS.toolCall.map((field) => ({ required: [field] }));
    },
  });
  return { $schema, $id: id, title, description, ...rest };
}
