import { useState, type JSX } from 'react';
import type { TrafficEvent } from '../../../../../shared/api.js';
import { useProxies } from '../../../stores/proxies.js';

export interface Target {
  /** the proxy to send through ('' when none runs) */
  proxyId: string;
  /** the exchange's own proxy is not the one (a file's exchange, or its proxy is not running) */
  chosen: boolean;
  running: Array<{ id: string; name: string }>;
  setProxyId(id: string): void;
}

/** Where a Resend goes: the exchange's own proxy while it runs; else (a file's exchange, a stopped proxy) one chosen. */
export function useSendTarget(event: TrafficEvent): Target {
  const proxies = useProxies((s) => s.proxies);
  const running = proxies.filter((p) => p.state === 'running').map((p) => ({ id: p.id, name: p.name }));
  const own = running.some((p) => p.id === event.proxyId);
  const [picked, setPicked] = useState('');
  const proxyId = own ? event.proxyId : running.some((p) => p.id === picked) ? picked : (running[0]?.id ?? '');
  return { proxyId, chosen: !own, running, setProxyId: setPicked };
}

/** "Send to [proxy]" when the exchange's own proxy cannot take it; nothing to choose otherwise. */
export function SendTarget({ target }: { target: Target }): JSX.Element | null {
  if (!target.chosen) return null;
  if (target.running.length === 0)
    return <p className="muted small">No proxy is running: start one to send this request through it.</p>;
  return (
    <label className="send-target small">
      Send through
      <select
        aria-label="Send through proxy"
        value={target.proxyId}
        onChange={(e) => target.setProxyId(e.target.value)}
      >
        {target.running.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
          </option>
        ))}
      </select>
      <span className="muted">(this exchange&apos;s own proxy is not running, or it comes from a file)</span>
    </label>
  );
}
