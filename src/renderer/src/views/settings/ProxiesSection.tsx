import type { JSX, ReactNode } from 'react';
import type { Settings } from '../../../../shared/settings.js';
import { useSettings } from '../../stores/settings';
import { CommitInput } from './CommitInput';
import type { SettingsSectionProps } from './use-save-setting';

type Switch = 'autoScroll' | 'preserveLog' | 'hideAppTraffic' | 'restoreWorkspace' | 'agentCanSend';

/** One on/off setting, saved as soon as it is clicked. */
function SettingCheck({
  name,
  children,
  settings,
  save,
}: SettingsSectionProps & { name: Switch; children: ReactNode }): JSX.Element {
  return (
    <label className="check">
      <input type="checkbox" checked={settings[name]} onChange={(e) => save({ [name]: e.target.checked })} />
      {children}
    </label>
  );
}

/** The typed fields: the default cassette folder, the timeline's capacity and the breakpoint hold. */
function ProxyFields({ settings }: { settings: Settings }): JSX.Element {
  const update = useSettings((s) => s.update);
  return (
    <>
      <CommitInput
        label="Default cassette folder"
        wide
        value={settings.defaultCacheDir}
        hint="Proposed for new proxies that record or replay."
        onCommit={(text) => update({ defaultCacheDir: text })}
      />
      <CommitInput
        label="Timeline capacity"
        type="number"
        min={1000}
        max={1_000_000}
        step={1000}
        value={String(settings.trafficCapacity)}
        hint="Exchanges kept in memory, 1,000 to 1,000,000 (the oldest are dropped). Applies at the next start."
        onCommit={async (text) => {
          if (!/^\s*\d+\s*$/.test(text)) throw new Error('trafficCapacity: a whole number between 1,000 and 1,000,000');
          await update({ trafficCapacity: Number(text) });
        }}
      />
      <CommitInput
        label="Breakpoint hold (seconds)"
        type="number"
        min={5}
        max={3600}
        step={5}
        value={String(settings.breakpointHoldS)}
        hint="How long a call waits at a breakpoint before it resumes unchanged, 5 to 3,600 (default 45: below the 60 s most MCP clients wait)."
        onCommit={async (text) => {
          if (!/^\s*\d+\s*$/.test(text))
            throw new Error('breakpointHoldS: a whole number of seconds between 5 and 3,600');
          await update({ breakpointHoldS: Number(text) });
        }}
      />
    </>
  );
}

/** Proxies and timeline: the typed fields, then the switches. */
export function ProxiesSection(props: SettingsSectionProps): JSX.Element {
  return (
    <section className="card" aria-labelledby="settings-proxies">
      <h2 id="settings-proxies">Proxies and timeline</h2>
      <ProxyFields settings={props.settings} />
      <SettingCheck name="autoScroll" {...props}>
        Follow new exchanges in the timeline (auto-scroll)
      </SettingCheck>
      <SettingCheck name="preserveLog" {...props}>
        Preserve log: keep the timeline across restarts (within its byte cap), not only the pinned exchanges
      </SettingCheck>
      <SettingCheck name="hideAppTraffic" {...props}>
        Hide the app&apos;s own traffic in the timeline (its session&apos;s setup, the lists Compose asks for)
      </SettingCheck>
      <SettingCheck name="restoreWorkspace" {...props}>
        Restore proxies, rules and breakpoints at start (running proxies start again, on the same ports when free)
      </SettingCheck>
      <SettingCheck name="agentCanSend" {...props}>
        Let agents send through <code>mcp-rewind mcp</code> (its resend_exchange and edit_and_resend tools; off:
        read-only)
      </SettingCheck>
    </section>
  );
}
