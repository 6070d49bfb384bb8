// Every cassette entry any suite records in-process goes through distilledFor (src/shared/cassette/distilled-write.ts), the one
// place an entry is serialised. This setup file (vitest.config.ts setupFiles) wraps it — the real function still does
// the work — and checks each written entry against the published JSON Schema (schemas/cassette-entry.schema.json):
// a test file whose recordings the schema rejects fails in its afterAll, naming the entry.
import { afterAll, expect, vi } from 'vitest';

const audit = vi.hoisted(() => ({ rejected: [] as string[], checked: 0 }));

vi.mock('../../src/shared/cassette/distilled-write.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/shared/cassette/distilled-write.js')>();
  const { compileSchema, loadSchema } = await import('../helpers/json-schema.js');
  const schema = compileSchema(loadSchema('cassette-entry.schema.json'));
  return {
    ...original,
    distilledFor: (...args: Parameters<typeof original.distilledFor>) => {
      const written = original.distilledFor(...args);
      audit.checked++;
      const problem = schema.problem(JSON.parse(JSON.stringify(written)));
      if (problem) audit.rejected.push(`${args[0]}: ${problem}: ${JSON.stringify(written).slice(0, 300)}`);
      return written;
    },
  };
});

afterAll(() => {
  const shown = audit.rejected.slice(0, 10); // the first ones are enough to see what is wrong
  expect(
    shown,
    `${audit.rejected.length} of ${audit.checked} recorded entries rejected by schemas/cassette-entry.schema.json`,
  ).toEqual([]);
});
