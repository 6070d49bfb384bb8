import { EventEmitter } from 'node:events';
import type { ExchangeEvent } from '../../../../shared/traffic.js';
import type { Hook, Need } from './contract.js';
import type { LiveExchange } from './exchange.js';

/** Event emission as a hook: finished exchanges become ExchangeEvents — only while someone listens. */
export class EventHook implements Hook {
  readonly name = 'events';
  readonly emitter = new EventEmitter<{ exchange: [ExchangeEvent] }>();

  need(): Need {
    return this.emitter.listenerCount('exchange') > 0 ? 'observe' : 'none';
  }

  onResponse(exchange: LiveExchange): void {
    if (this.emitter.listenerCount('exchange') > 0) this.emitter.emit('exchange', exchange.toEvent());
  }
}

/** Every finished exchange, as an ExchangeEvent, to one listener (the library's wrapTransport keeps them for the test). */
export class ObserverHook implements Hook {
  readonly name = 'observer';

  constructor(private readonly listener: (event: ExchangeEvent) => void) {}

  need(): Need {
    return 'observe';
  }

  onResponse(exchange: LiveExchange): void {
    this.listener(exchange.toEvent());
  }
}
