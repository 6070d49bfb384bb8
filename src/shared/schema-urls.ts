/**
 * Where the JSON Schemas of the files mcp-rewind reads are published: the schemas/ folder of the npm package, served
 * by jsDelivr. Unversioned on purpose: every release reads every older cassette and rules file, so the newest schema
 * validates them all. Files written by mcp-rewind point at these in `$schema`; readers ignore `$schema`.
 */
export const SCHEMA_BASE_URL = 'https://cdn.jsdelivr.net/npm/mcp-rewind/schemas/';
export const CASSETTE_ENTRY_SCHEMA_URL = `${SCHEMA_BASE_URL}cassette-entry.schema.json`;
export const RULES_SCHEMA_URL = `${SCHEMA_BASE_URL}rules.schema.json`;
