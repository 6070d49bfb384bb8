import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ListResourcesRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { startCustomUpstream, type CustomUpstream } from './custom-upstream.js';

/** An SDK server that sends resources/updated on the GET stream (outside any request) shortly after a subscribe. */
export function startSubscriber(): Promise<CustomUpstream> {
  return startCustomUpstream(() => {
    const server = new Server(
      { name: 'subscriber', version: '1' },
      { capabilities: { resources: { subscribe: true } } },
    );
    server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [{ uri: 'demo://a', name: 'a' }] }));
    server.setRequestHandler(ReadResourceRequestSchema, () => ({ contents: [{ uri: 'demo://a', text: 'v1' }] }));
    server.setRequestHandler(SubscribeRequestSchema, (req) => {
      setTimeout(() => void server.sendResourceUpdated({ uri: req.params.uri }), 20); // on the GET stream, later
      return {};
    });
    return server;
  });
}
