import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, instance, type ErrorBody } from './harness.js';

// Every REST input is validated; a 400 carries JSON {error, message} and the message names the bad field.
afterEach(cleanup);

const SCHEMA = { type: 'object' };
const ok = (name: string) => ({ name, input_schema: SCHEMA, behavior: { type: 'override', response: { text: name } } });

const badCreates: Array<{ what: string; body: unknown; names: string[] }> = [
  {
    what: 'an unknown behavior type',
    body: { tools: [{ name: 'x', input_schema: SCHEMA, behavior: { type: 'nope' } }] },
    names: ['tools.0.behavior.type'],
  },
  { what: 'duplicate tool names', body: { tools: [ok('a'), ok('b'), ok('a')] }, names: ['tools.2.name', 'duplicate'] },
  {
    what: 'a synthetic tool without input_schema (no upstream: every tool is synthetic)',
    body: { tools: [ok('fine'), { name: 'x', behavior: { type: 'override', response: { text: 'y' } } }] },
    names: ['tools.1.input_schema'],
  },
  {
    what: 'both text and content in a response',
    body: {
      tools: [
        { ...ok('x'), behavior: { type: 'override', response: { text: 'a', content: [{ type: 'text', text: 'b' }] } } },
      ],
    },
    names: ['tools.0.behavior.response'],
  },
  {
    what: 'a negative delay_s',
    body: { tools: [{ ...ok('x'), behavior: { type: 'override', response: { text: 'a', delay_s: -1 } } }] },
    names: ['tools.0.behavior.response.delay_s'],
  },
  {
    what: 'an override without a response',
    body: { tools: [{ ...ok('x'), behavior: { type: 'override' } }] },
    names: ['tools.0.behavior.response'],
  },
  {
    what: 'an inject without a template',
    body: { tools: [{ ...ok('x'), behavior: { type: 'inject' } }] },
    names: ['tools.0.behavior.template'],
  },
  {
    what: 'an input_schema that is not an object schema',
    body: { tools: [{ ...ok('x'), input_schema: { type: 'array' } }] },
    names: ['tools.0.input_schema.type'],
  },
  { what: 'an empty tool name', body: { tools: [{ ...ok('x'), name: '' }] }, names: ['tools.0.name'] },
  {
    what: 'a content block without type',
    body: { tools: [{ ...ok('x'), behavior: { type: 'override', response: { content: [{ text: 'no type' }] } } }] },
    names: ['tools.0.behavior.response.content.0.type'],
  },
  {
    what: 'an unknown field in a rule',
    body: { tools: [{ ...ok('x'), colour: 'red' }] },
    names: ['tools.0', 'colour'],
  },
  { what: 'an unknown top-level field', body: { tools: [], bogus_field: 1 }, names: ['bogus_field'] },
  { what: 'tools that is not a list', body: { tools: { name: 'x' } }, names: ['tools'] },
  { what: 'a non-boolean passthrough', body: { passthrough: 'yes' }, names: ['passthrough'] },
  { what: 'an unknown mode', body: { mode: 'rewind' }, names: ['mode'] },
  { what: 'a non-http upstream url', body: { upstream: { url: 'ftp://127.0.0.1/mcp' } }, names: ['upstream.url'] },
  {
    what: 'a non-string upstream header',
    body: { upstream: { url: 'http://127.0.0.1:9/mcp', headers: { 'X-Num': 5 } } },
    names: ['upstream.headers.X-Num'],
  },
  { what: 'a body that is not an object', body: [1, 2], names: [] },
  { what: 'proxy-only mode without an upstream', body: { mode: 'proxy-only' }, names: ['upstream'] },
  {
    what: 'record mode without a cassette',
    body: { mode: 'record', upstream: { url: 'http://127.0.0.1:9/mcp' } },
    names: ['cassette'],
  },
];

describe('serve REST validation: POST /api/sessions', () => {
  it.each(badCreates)('rejects $what with 400 naming the field', async ({ body, names }) => {
    const { api } = await instance();
    const answer = await api.request<ErrorBody>('POST', '/api/sessions', body);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: expect.any(String), message: expect.any(String) });
    for (const name of names) expect(answer.body.message).toContain(name);
    expect((await api.list()).sessions).toEqual([]);
  });

  it('rejects malformed JSON with a 400 JSON error', async () => {
    const { api } = await instance();
    const answer = await api.request<ErrorBody>('POST', '/api/sessions', '{"tools": [');
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: expect.any(String), message: expect.any(String) });
    expect((await api.list()).sessions).toEqual([]);
  });

  it('accepts a MiMCP body unchanged (snake_case fields, null upstream, null fields meaning "keep")', async () => {
    const { api } = await instance();
    const created = await api.create({
      name: 'mimcp-style',
      instructions: 'You are being tested.',
      upstream: null,
      passthrough: true,
      tools: [
        {
          name: 'fake_admin',
          description: null,
          input_schema: { type: 'object', properties: { cmd: { type: 'string' } } },
          behavior: {
            type: 'override',
            response: { text: 'denied', structured_content: { ok: false }, is_error: false, delay_s: 0 },
          },
        },
      ],
    });
    expect(created.tools.map((t) => t.name)).toEqual(['fake_admin']);
  });
});

describe('serve REST validation: PUT /api/sessions/{sid}/tools', () => {
  it('rejects a bad overlay with 400 naming the field and keeps the old overlay', async () => {
    const { api } = await instance();
    const s = await api.create({ tools: [ok('keep_me')] });
    const cases: Array<[unknown, string]> = [
      [{ tools: [{ ...ok('x'), behavior: { type: 'nope' } }] }, 'tools.0.behavior.type'],
      [{ tools: [ok('a'), ok('a')] }, 'tools.1.name'],
      [{ tools: [{ name: 'x', behavior: { type: 'override', response: { text: 'y' } } }] }, 'tools.0.input_schema'],
      [{ tools: [], upstream: { url: 'not a url' } }, 'upstream.url'],
      [{ tools: [], passthrough: 1 }, 'passthrough'],
      [{ tools: [], instructions: 'there is deliberately no way to change instructions' }, 'instructions'],
    ];
    for (const [body, field] of cases) {
      const answer = await api.request<ErrorBody>('PUT', `/api/sessions/${s.session_id}/tools`, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.message, JSON.stringify(body)).toContain(field);
    }
    expect((await api.detail(s.session_id)).overlay).toEqual([ok('keep_me')]);
    expect((await api.tools(s.session_id)).tools.map((t) => t.name)).toEqual(['keep_me']);
  });
});
