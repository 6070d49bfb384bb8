import { useState, type JSX } from 'react';
import type { TrafficEvent } from '../../../../../shared/api.js';
import { curlScript, jsonRpcMessage, responseJson, sdkSnippet, type CopyTarget } from '../../../models/copy-as.js';
import { copyText } from '../../../components/clipboard.js';
import { MenuButton } from '../../../components/Menu.js';

interface CopyItem {
  label: string;
  hint: string;
  /** the text copied; none when there is nothing to copy */
  text: (() => string) | undefined;
  /** what the status line says was copied */
  what: string;
}

/** the menu's items, in order: curl, JSON-RPC, TypeScript, the response */
function copyItems(event: TrafficEvent, target: CopyTarget | undefined): CopyItem[] {
  const request = { method: event.method, params: event.request.params };
  return [
    {
      label: 'curl',
      hint: target
        ? 'a sh script: opens a session of its own on the proxy, sends, prints the answer'
        : 'no running proxy to send it to',
      text: target && (() => curlScript(request, target)),
      what: 'curl',
    },
    {
      label: 'JSON-RPC message',
      hint: 'the request, with a fresh id',
      text: () => jsonRpcMessage(request),
      what: 'the JSON-RPC message',
    },
    {
      label: 'TypeScript (SDK)',
      hint: target ? 'client.callTool(…) with the official SDK' : 'no running proxy to send it to',
      text: target && (() => sdkSnippet(request, target)),
      what: 'the TypeScript snippet',
    },
    {
      label: 'Response as JSON',
      hint: event.response ? 'the answer the client got' : 'no answer yet',
      text: event.response && (() => responseJson(event.response)),
      what: 'the response',
    },
  ];
}

/** "Copy as": curl (a script with a session of its own), JSON-RPC, a TypeScript SDK snippet; the response as JSON. */
export function CopyMenu({ event, target }: { event: TrafficEvent; target?: CopyTarget }): JSX.Element {
  const [status, setStatus] = useState<string>();
  return (
    <div className="copy-menu">
      <MenuButton label="Copy as ▾" menuLabel="Copy as">
        {(close) => (
          <>
            {copyItems(event, target).map(({ label, hint, text, what }) => (
              <button
                key={label}
                type="button"
                role="menuitem"
                disabled={!text}
                title={hint}
                onClick={() => {
                  if (text) copyText(text(), setStatus, `copied ${what}`);
                  close();
                }}
              >
                <span>{label}</span>
                <span className="muted small">{hint}</span>
              </button>
            ))}
          </>
        )}
      </MenuButton>
      {status && (
        <span className="muted small" aria-live="polite">
          {status}
        </span>
      )}
    </div>
  );
}
