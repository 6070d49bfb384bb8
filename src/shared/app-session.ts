import { z } from 'zod';

/**
 * What the app's own MCP session of each proxy (Resend, Edit & resend, Compose) declares at initialize: the client
 * capabilities (a server may offer more tools to a client that can answer sampling or elicitation) and the roots it
 * answers roots/list with. A change applies from the next call: the app's sessions are opened again.
 */
export const AppSessionConfigSchema = z.strictObject({
  capabilities: z.strictObject({ sampling: z.boolean(), elicitation: z.boolean(), roots: z.boolean() }),
  roots: z
    .array(
      z.strictObject({
        uri: z
          .string()
          .regex(/^file:\/\//, 'a root is a file:// URI')
          .max(4096),
        name: z.string().max(200).optional(),
      }),
    )
    .max(100),
});
export type AppSessionConfig = z.infer<typeof AppSessionConfigSchema>;

export const DEFAULT_APP_SESSION: AppSessionConfig = {
  capabilities: { sampling: true, elicitation: true, roots: true },
  roots: [],
};

/** the client capabilities an app session declares at initialize (the engine's; the UI says what they are) */
export function appSessionCapabilities(config: AppSessionConfig): Record<string, object> {
  const { sampling, elicitation, roots } = config.capabilities;
  return {
    ...(sampling ? { sampling: {} } : {}),
    ...(elicitation ? { elicitation: { form: {} } } : {}),
    ...(roots ? { roots: { listChanged: false } } : {}),
  };
}

/** headers the transport sets itself (or that belong to the connection): never taken from the user */
const RESERVED_HEADERS = new Set([
  'accept',
  'connection',
  'content-length',
  'content-type',
  'host',
  'keep-alive',
  'last-event-id',
  'mcp-protocol-version',
  'mcp-session-id',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** extra HTTP headers of one request sent by the app (an Authorization for the upstream, a tracing header) */
export const RequestHeadersSchema = z.record(z.string().max(100), z.string().max(8192)).superRefine((headers, ctx) => {
  const names = Object.keys(headers);
  if (names.length > 50) ctx.addIssue({ code: 'custom', message: 'at most 50 headers' });
  for (const name of names) {
    const problem = !TOKEN.test(name)
      ? 'not a header name (letters, digits, - and a few marks)'
      : RESERVED_HEADERS.has(name.toLowerCase())
        ? 'the transport sets this header itself'
        : /[\r\n\0]/.test(headers[name])
          ? 'a header value is one line'
          : undefined;
    if (problem) ctx.addIssue({ code: 'custom', path: [name], message: problem });
  }
});
