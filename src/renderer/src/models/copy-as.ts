import { shellQuote } from '../../../shared/shell-quote.js';

/**
 * "Copy as": an exchange's request as a runnable curl script, a JSON-RPC message or a TypeScript SDK snippet, and its
 * response as JSON. Pure text generators (no clipboard, no I/O).
 *
 * The curl script opens a session of its own on the proxy (initialize, notifications/initialized), sends the request
 * there with that Mcp-Session-Id, prints the answer (JSON or SSE events) and ends the session (DELETE): it works
 * while the proxy runs, whatever happened to the agent's session, and never disturbs it. Secrets are never copied:
 * a header that needs one is written with a shell variable placeholder (`$MCP_TOKEN`).
 */

export interface CopyRequest {
  method: string;
  params?: Record<string, unknown>;
}

export interface CopyTarget {
  /** the proxy's MCP endpoint */
  url: string;
  /** MCP protocol version to speak (the exchange's; else the latest) */
  protocolVersion?: string;
  /** what the script says it sends ("tools/call echo through proxy rec") */
  title?: string;
  /** headers the endpoint needs, each value a placeholder such as `Bearer $MCP_TOKEN` (never a real secret) */
  headers?: Record<string, string>;
}

export const LATEST_PROTOCOL_VERSION = '2025-11-25';

/** The request as a JSON-RPC message, with a fresh id (pretty-printed). */
export function jsonRpcMessage(request: CopyRequest, id: number | string = 1): string {
  return JSON.stringify(
    { jsonrpc: '2.0', id, method: request.method, ...(request.params !== undefined ? { params: request.params } : {}) },
    null,
    2,
  );
}

/** The response as JSON (pretty-printed). */
export function responseJson(response: unknown): string {
  return JSON.stringify(response, null, 2);
}

/** A header argument, double-quoted so that a `$PLACEHOLDER` in it expands (and nothing else does). */
function headerArg(name: string, value: string): string {
  return `-H "${`${name}: ${value}`.replace(/["\\`]/g, (c) => `\\${c}`)}"`;
}

/** A POSIX sh script: its own session on the proxy, the request, the answer on stdout, the session ended. */
export function curlScript(request: CopyRequest, target: CopyTarget): string {
  const version = target.protocolVersion ?? LATEST_PROTOCOL_VERSION;
  const extra = Object.entries(target.headers ?? {})
    .map(([name, value]) => ` ${headerArg(name, value)}`)
    .join('');
  const init = {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'curl', version: '1.0.0' } },
  };
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: request.method,
    ...(request.params !== undefined ? { params: request.params } : {}),
  });
  const session = `-H "mcp-session-id: $SID" -H ${shellQuote(`mcp-protocol-version: ${version}`)}`;
  return [
    '#!/bin/sh',
    `# ${target.title ?? request.method} — on a session of its own: it initializes one, sends the request there, prints`,
    "# the answer (JSON, or SSE events) and ends the session; the agent's own session is never touched. Needs curl.",
    ...(target.headers && Object.keys(target.headers).length
      ? [
          `# Set ${[...new Set(Object.values(target.headers).flatMap((v) => v.match(/\$[A-Z_][A-Z0-9_]*/g) ?? []))].join(', ')} first.`,
        ]
      : []),
    `URL=${shellQuote(target.url)}`,
    `JSON='content-type: application/json'`,
    `ACCEPT='accept: application/json, text/event-stream'`,
    `SID=$(curl -sS -D - -o /dev/null "$URL" -H "$JSON" -H "$ACCEPT"${extra} \\`,
    `  -d ${shellQuote(JSON.stringify(init))} \\`,
    `  | tr -d '\\r' | awk 'tolower($1) == "mcp-session-id:" { print $2 }')`,
    `curl -sS -o /dev/null "$URL" -H "$JSON" -H "$ACCEPT"${extra} ${session} -d '{"jsonrpc":"2.0","method":"notifications/initialized"}'`,
    `curl -sS -N "$URL" -H "$JSON" -H "$ACCEPT"${extra} ${session} \\`,
    `  -d ${shellQuote(body)}`,
    `curl -sS -o /dev/null -X DELETE "$URL"${extra} ${session}`,
    '',
  ].join('\n');
}

/** A value as a TypeScript literal (JSON is one). */
const tsValue = (value: unknown): string => JSON.stringify(value, null, 2);

/** The SDK call for a request: the Client's own method where one exists, else client.request with ResultSchema. */
function sdkCall(request: CopyRequest): { call: string; imports: string[] } {
  const { _meta, ...params } = request.params ?? {};
  const progress = typeof _meta === 'object' && _meta !== null && 'progressToken' in _meta;
  const options = progress ? ", undefined, { onprogress: (p) => console.error('progress', p) }" : '';
  const arg = Object.keys(params).length ? tsValue(params) : '';
  const methods: Record<string, string> = {
    'tools/call': 'callTool',
    'tools/list': 'listTools',
    'resources/read': 'readResource',
    'resources/list': 'listResources',
    'resources/templates/list': 'listResourceTemplates',
    'resources/subscribe': 'subscribeResource',
    'resources/unsubscribe': 'unsubscribeResource',
    'prompts/get': 'getPrompt',
    'prompts/list': 'listPrompts',
    'completion/complete': 'complete',
  };
  if (request.method === 'ping') return { call: 'client.ping()', imports: [] };
  if (request.method === 'logging/setLevel')
    return { call: `client.setLoggingLevel(${tsValue(params.level ?? 'info')})`, imports: [] };
  const method = Object.hasOwn(methods, request.method) ? methods[request.method] : undefined;
  if (method)
    return { call: `client.${method}(${arg || (method.startsWith('list') ? '' : '{}')}${options})`, imports: [] };
  const message = tsValue({ method: request.method, ...(Object.keys(params).length ? { params } : {}) });
  return { call: `client.request(${message}, ResultSchema)`, imports: ['ResultSchema'] };
}

/**
 * A TypeScript snippet doing the same call with the official SDK's Client over Streamable HTTP. Saved as call.ts it
 * runs with `npx tsx call.ts` in any folder: no top-level await (a folder without `"type": "module"` makes call.ts
 * CommonJS, where top-level await is an error), the SDK's imports resolve in both module systems.
 */
export function sdkSnippet(request: CopyRequest, target: CopyTarget): string {
  const { call, imports } = sdkCall(request);
  const headers = target.headers && Object.keys(target.headers).length ? target.headers : undefined;
  const transportOptions = headers
    ? `, {\n    requestInit: { headers: { ${Object.entries(headers)
        .map(
          ([name, value]) =>
            `${JSON.stringify(name)}: \`${value.replace(/\$([A-Z_][A-Z0-9_]*)/g, '${process.env.$1}')}\``,
        )
        .join(', ')} } },\n  }`
    : '';
  const indent = (text: string): string => text.replace(/\n/g, '\n  ');
  return [
    `// ${target.title ?? request.method} — npm install @modelcontextprotocol/sdk; run with: npx tsx call.ts`,
    `import { Client } from '@modelcontextprotocol/sdk/client/index.js';`,
    `import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';`,
    ...(imports.length ? [`import { ${imports.join(', ')} } from '@modelcontextprotocol/sdk/types.js';`] : []),
    '',
    'async function main(): Promise<void> {',
    `  const client = new Client({ name: 'my-client', version: '1.0.0' });`,
    `  await client.connect(new StreamableHTTPClientTransport(new URL(${JSON.stringify(target.url)})${transportOptions}));`,
    `  const result = await ${indent(call)};`,
    `  console.log(JSON.stringify(result, null, 2));`,
    `  await client.close();`,
    '}',
    '',
    'main().catch((error: unknown) => {',
    '  console.error(error);',
    '  process.exitCode = 1;',
    '});',
    '',
  ].join('\n');
}
