/** Issue 21 item 16 for `serve`: a replay session on a cassette that does not exist is refused (400), and nothing is made. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { cleanup, instance } from '../serve/harness.js';
import { tempDir } from '../helpers/temp.js';

afterEach(cleanup);

it('serve: a replay session on a missing cassette is refused with 400 naming it; no folder is created', async () => {
  const { api } = await instance();
  const missing = join(await tempDir(), 'nope');
  const answer = await api.request<{ error?: string }>('POST', '/api/sessions', { mode: 'replay', cassette: missing });
  expect(answer.status).toBe(400);
  expect(answer.text).toContain(`cassette: cassette ${missing} does not exist`);
  expect(existsSync(missing)).toBe(false);
  expect((await api.list()).sessions).toEqual([]);
});
