/**
 * One fixed session of the TypeScript SDK v2 client against the v2 fixture server (test/fixtures/v2-server.ts): what
 * the client saw of the tools, a call or two, a streamed call's progress, a resource and a prompt — comparable
 * between a live server, a recording proxy and a replay. `auto` speaks 2026-07-28 (what the server offers), `legacy`
 * the 2025 initialize handshake.
 */
import { connectV2Client } from '../fixtures/v2-client.js';

export async function v2Session(url: string, negotiation: 'auto' | 'legacy' = 'auto') {
  const c = await connectV2Client(url, { negotiation });
  try {
    const progress: number[] = [];
    return {
      era: c.client.getProtocolEra(),
      tools: await c.client.listTools(),
      echo: await c.client.callTool({ name: 'echo', arguments: { text: 'modern' } }),
      progress: await c.client.callTool(
        { name: 'progress', arguments: { steps: 2 } },
        { onprogress: (p) => progress.push(p.progress) },
      ),
      progressSeen: progress,
      resource: await c.client.readResource({ uri: 'fixture://hello' }),
      prompt: await c.client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } }),
    };
  } finally {
    await c.close();
  }
}
