import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { CommandOutputs, ProxyConfig, ProxyInfo } from '../../../shared/api.js';
import { startDemoServer, type DemoServer } from './demo-server.js';

/** What the demo needs from the controller. */
export interface DemoHost {
  readonly dataDir: string;
  createProxy(config: ProxyConfig, options: { demo: true }): Promise<ProxyInfo>;
  startProxy(id: string): Promise<ProxyInfo>;
  setUpstreamUrl(id: string, url: string): Promise<void>;
  list(): ProxyInfo[];
  log(line: string, level: 'info' | 'warn'): void;
}

export const DEMO_PROXY_NAME = 'demo';
const CANNED_SUMMARY = 'A calm, sunny day — nothing to worry about.';

/**
 * The first-start demo: the bundled demo server, a recording proxy in front of it (cassette in
 * `<dataDir>/demo-cassette`), and a scripted agent that runs through the proxy. Each start runs the agent again;
 * the server and the proxy are made once and reused.
 */
export class Demo {
  private server?: Promise<DemoServer>;
  private readonly agents = new Set<Client>();
  private readonly runs = new Set<Promise<void>>();
  private closed = false;

  constructor(private readonly host: DemoHost) {}

  async start(): Promise<CommandOutputs['demo.start']> {
    if (this.closed) throw new Error('the app is shutting down');
    this.server ??= startDemoServer().catch((error: unknown) => {
      this.server = undefined;
      throw error;
    });
    const server = await this.server;
    // the demo's proxy of this run, or of an earlier one (restored with its rules and breakpoints)
    let proxy = this.host.list().find((p) => p.demo);
    if (!proxy) {
      proxy = await this.host.createProxy(
        {
          name: DEMO_PROXY_NAME,
          mode: 'record',
          upstreamUrl: server.url,
          cacheDir: join(this.host.dataDir, 'demo-cassette'),
          port: 0,
        },
        { demo: true },
      );
    } else if (proxy.state !== 'running' || proxy.config.upstreamUrl !== server.url) {
      await this.host.setUpstreamUrl(proxy.id, server.url);
      proxy = await this.host.startProxy(proxy.id);
    }
    if (proxy.state !== 'running' || !proxy.url)
      throw new Error(`the demo proxy did not start: ${proxy.error ?? proxy.state}`);
    const url = proxy.url;
    const run = this.runAgent(url)
      .catch((error: unknown) => {
        if (!this.closed)
          this.host.log(`demo agent: ${error instanceof Error ? error.message : String(error)}`, 'warn');
      })
      .finally(() => this.runs.delete(run));
    this.runs.add(run);
    return { proxy, upstreamUrl: server.url };
  }

  /** The scripted agent: lists the tools, then calls each one (long-task with progress, summarize with sampling). */
  private async runAgent(url: string): Promise<void> {
    const client = new Client({ name: 'mcp-rewind-demo-agent', version: '1.0.0' }, { capabilities: { sampling: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, () => ({
      model: 'demo-model',
      role: 'assistant',
      content: { type: 'text', text: CANNED_SUMMARY },
    }));
    this.agents.add(client);
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const { tools } = await client.listTools();
      this.host.log(`demo agent: ${tools.length} tools: ${tools.map((t) => t.name).join(', ')}`, 'info');
      await client.callTool({ name: 'weather', arguments: { city: 'Lisbon' } });
      await client.callTool({ name: 'logo', arguments: {} });
      await client.callTool({ name: 'stats', arguments: {} });
      let progress = 0;
      await client.callTool({ name: 'long-task', arguments: {} }, undefined, { onprogress: () => void progress++ });
      this.host.log(`demo agent: long-task reported progress ${progress} times`, 'info');
      await client.callTool({
        name: 'summarize',
        arguments: { text: 'The weather in Lisbon is sunny, 21 °C, with a light breeze from the sea.' },
      });
    } finally {
      this.agents.delete(client);
      await client.close().catch(() => {});
    }
  }

  /** Ends the agent runs in progress (first step of shutting down: before the proxies close). */
  async stopAgents(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.agents].map((client) => client.close().catch(() => {})));
    await Promise.all([...this.runs]);
  }

  /** Stops agents and the demo server (the demo proxy is one of the controller's proxies: the controller closes it). */
  async close(): Promise<void> {
    await this.stopAgents();
    const server = await this.server?.catch(() => undefined);
    this.server = undefined;
    await server?.close();
  }
}
