/**
 * The environment a stdio server is started with: all of the proxy's own (the SDK's StdioClientTransport would pass
 * only HOME, LOGNAME, PATH, SHELL, TERM, USER) plus what the spec adds. A module of its own so that the in-process
 * stdio path does not load the bridge's legacy SSE client to get it.
 */
export function fullEnvironment(extra: Record<string, string> | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
  return { ...env, ...extra };
}
