#!/usr/bin/env node
// Writes schemas/*.schema.json from the zod schemas (src/shared/json-schemas.ts, compiled by `npm run build:cli`).
// Unchanged files are left alone.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { jsonSchemas } from '../dist/shared/json-schemas.js';

const dir = new URL('../schemas/', import.meta.url);
mkdirSync(dir, { recursive: true });
for (const [name, schema] of Object.entries(jsonSchemas())) {
  const file = new URL(name, dir);
  const text = JSON.stringify(schema, null, 2) + '\n';
  let old;
  try {
    old = readFileSync(file, 'utf8');
  } catch {
    old = undefined;
  }
  if (old !== text) writeFileSync(file, text);
}
