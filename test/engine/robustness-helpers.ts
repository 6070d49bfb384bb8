/** Shared helpers of the robustness suites: raw HTTP where no client library would send such input, waits, temp dirs. */
import { readdir } from 'node:fs/promises';
import http, { type IncomingHttpHeaders } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type RunningProxy } from '../../src/main/engine/proxy.js';
import { removeTempDirs, tempDir as sharedTempDir } from '../helpers/temp.js';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const FOUR_MIB = 4 * 1024 * 1024;
export const ACCEPT = 'application/json, text/event-stream';

// ---------------------------------------------------------------------------------------------------------------
// raw HTTP helpers

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface RawOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** send the body with Transfer-Encoding: chunked (no Content-Length), in 64 kB pieces */
  chunked?: boolean;
}

/** One HTTP exchange on a fresh connection; the answer is read completely. Bounded by a 10 s timeout. */
export function rawRequest(url: string, opts: RawOptions = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const body = opts.body === undefined ? undefined : Buffer.isBuffer(opts.body) ? opts.body : Buffer.from(opts.body);
    const headers: Record<string, string> = { ...opts.headers };
    if (body && !opts.chunked && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length'))
      headers['content-length'] = String(body.length);
    let answered = false;
    const req = http.request(url, { method: opts.method ?? 'POST', headers, agent: false }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    req.setTimeout(10_000, () => req.destroy(new Error(`no answer from ${url} within 10 s`)));
    // The server may answer (413) and close before the whole body is sent: a write error after the answer is fine.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    if (body && opts.chunked) {
      for (let i = 0; i < body.length; i += 65536) req.write(body.subarray(i, i + 65536));
      req.end();
    } else {
      req.end(body);
    }
  });
}

/** The JSON-RPC messages of an answer, JSON or SSE. */
export function messagesOf(res: RawResponse): Array<Record<string, unknown>> {
  if (String(res.headers['content-type']).includes('text/event-stream')) {
    const out: Array<Record<string, unknown>> = [];
    for (const event of res.text.split(/\n\n/)) {
      const data = event
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data) out.push(JSON.parse(data) as Record<string, unknown>);
    }
    return out;
  }
  const parsed = JSON.parse(res.text) as unknown;
  return (Array.isArray(parsed) ? parsed : [parsed]) as Array<Record<string, unknown>>;
}

/** The single answer of a POST carrying one request. */
export function answerOf(res: RawResponse): Record<string, unknown> {
  const answers = messagesOf(res).filter((m) => !('method' in m));
  expect(answers).toHaveLength(1);
  return answers[0];
}

export const jsonHeaders = (extra: Record<string, string> = {}): Record<string, string> => ({
  'content-type': 'application/json',
  accept: ACCEPT,
  ...extra,
});

/** A raw MCP session (initialize + initialized) through the proxy; returns the headers later requests need. */
export async function rawSession(url: string): Promise<Record<string, string>> {
  const init = await rawRequest(url, {
    headers: jsonHeaders(),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 'init',
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
  expect(init.status).toBe(200);
  const answer = answerOf(init) as { result: { protocolVersion: string } };
  const headers: Record<string, string> = { 'mcp-protocol-version': answer.result.protocolVersion };
  const sid = init.headers['mcp-session-id'];
  if (typeof sid === 'string') headers['mcp-session-id'] = sid;
  const ack = await rawRequest(url, {
    headers: jsonHeaders(headers),
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  expect(ack.status).toBe(202);
  return headers;
}

export async function healthcheck(proxy: RunningProxy): Promise<RawResponse> {
  return rawRequest(`http://127.0.0.1:${proxy.port}/healthcheck`, { method: 'GET' });
}

export function textOf(result: unknown): string {
  return ((result as CallToolResult).content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('');
}

/** Rejects after ms: a bounded wait for something that must happen. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
    }),
  ]);
}

export async function until(condition: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Every file below root, as absolute paths (directories are listed too, with a trailing separator). */
export async function listTree(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries.map((e) => path.join(e.parentPath, e.name) + (e.isDirectory() ? path.sep : ''));
}

export const DISTILLED = /^(\d+) (.+?)\.json$/;
export const isDistilled = (name: string): boolean => DISTILLED.test(name) && !/\.(req|res|res-head)\.json$/.test(name);

// ---------------------------------------------------------------------------------------------------------------
// cleanup bookkeeping shared by all tests

/** A fresh temp folder for one test (removed by removeRobustTempDirs, in afterAll). */
export const tempDir = (): Promise<string> => sharedTempDir('rewind-robust-');
export const removeRobustTempDirs = removeTempDirs;
