import type { JSX } from 'react';
import { THEMES, type Theme } from '../../../shared/settings.js';
import { useSettings } from '../stores/settings';
import { CommitInput } from './settings/CommitInput';
import './settings/settings.css';

const THEME_LABELS: Record<Theme, string> = { system: 'System', light: 'Light', dark: 'Dark' };

/** Settings, saved as soon as they change, in settings.json of the user data folder (shared by both shells). */
export function SettingsView(): JSX.Element {
  const settings = useSettings((s) => s.settings);
  const file = useSettings((s) => s.file);
  const problem = useSettings((s) => s.problem);
  const error = useSettings((s) => s.error);
  const saving = useSettings((s) => s.saving);
  const update = useSettings((s) => s.update);

  if (!settings) {
    return (
      <p className={error ? 'error' : 'muted'}>{error ? `Cannot load the settings: ${error}` : 'Loading settings…'}</p>
    );
  }
  const save = (patch: Parameters<typeof update>[0]): void => void update(patch).catch(() => {}); // shown by the store's error
  const inElectron = typeof window !== 'undefined' && !!window.rewind;

  return (
    <div className="settings">
      {problem && (
        <section className="notice warning" role="note" aria-label="Settings file problem">
          <h2>The settings file could not be used</h2>
          <p className="small">{problem}</p>
        </section>
      )}

      <section className="card">
        <fieldset>
          <legend>Theme</legend>
          <div className="theme-choices" role="radiogroup" aria-label="Theme">
            {THEMES.map((theme) => (
              <label key={theme} className="theme-choice">
                <input
                  type="radio"
                  name="theme"
                  value={theme}
                  checked={settings.theme === theme}
                  onChange={() => save({ theme })}
                />
                <span className={`swatch ${theme}`} aria-hidden="true" />
                {THEME_LABELS[theme]}
              </label>
            ))}
          </div>
          <p className="hint">System follows your operating system's light or dark preference.</p>
        </fieldset>
      </section>

      <section className="card" aria-labelledby="settings-proxies">
        <h2 id="settings-proxies">Proxies and timeline</h2>
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
            if (!/^\s*\d+\s*$/.test(text))
              throw new Error('trafficCapacity: a whole number between 1,000 and 1,000,000');
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
        <label className="check">
          <input
            type="checkbox"
            checked={settings.autoScroll}
            onChange={(e) => save({ autoScroll: e.target.checked })}
          />
          Follow new exchanges in the timeline (auto-scroll)
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={settings.preserveLog}
            onChange={(e) => save({ preserveLog: e.target.checked })}
          />
          Preserve log: keep the timeline across restarts (within its byte cap), not only the pinned exchanges
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={settings.hideAppTraffic}
            onChange={(e) => save({ hideAppTraffic: e.target.checked })}
          />
          Hide the app&apos;s own traffic in the timeline (its session&apos;s setup, the lists Compose asks for)
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={settings.restoreWorkspace}
            onChange={(e) => save({ restoreWorkspace: e.target.checked })}
          />
          Restore proxies, rules and breakpoints at start (running proxies start again, on the same ports when free)
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={settings.agentCanSend}
            onChange={(e) => save({ agentCanSend: e.target.checked })}
          />
          Let agents send through <code>mcp-rewind mcp</code> (its resend_exchange and edit_and_resend tools; off:
          read-only)
        </label>
      </section>

      <section className="card" aria-labelledby="settings-recent">
        <h2 id="settings-recent">Recent cassette folders</h2>
        {settings.recentFolders.length === 0 ? (
          <p className="muted small">
            None yet: folders opened in the Cassettes view appear here (the same list the Cassettes and Export views
            offer).
          </p>
        ) : (
          <>
            <ul className="recent" aria-label="Recent cassette folders">
              {settings.recentFolders.map((dir) => (
                <li key={dir}>
                  <code>{dir}</code>
                  <button
                    type="button"
                    aria-label={`Forget ${dir}`}
                    onClick={() => save({ recentFolders: settings.recentFolders.filter((d) => d !== dir) })}
                  >
                    Forget
                  </button>
                </li>
              ))}
            </ul>
            <button type="button" onClick={() => save({ recentFolders: [] })}>
              Clear the list
            </button>
          </>
        )}
      </section>

      <section className="card" aria-labelledby="settings-window">
        <h2 id="settings-window">Window</h2>
        {settings.window ? (
          <p className="small">
            The desktop window reopens at {settings.window.width}×{settings.window.height} ({settings.window.x},{' '}
            {settings.window.y}){settings.window.maximized ? ', maximized' : ''}.{' '}
            <button type="button" onClick={() => save({ window: null })}>
              Forget
            </button>
          </p>
        ) : (
          <p className="muted small">
            {inElectron
              ? 'The window’s size and position are remembered when you move, resize or close it.'
              : 'The desktop app remembers its window’s size and position here.'}
          </p>
        )}
      </section>

      <div className="save-state" aria-live="polite">
        {error ? (
          <span className="error">Not saved: {error}</span>
        ) : saving > 0 ? (
          'Saving…'
        ) : (
          <span className="muted">Saved to {file}</span>
        )}
      </div>
    </div>
  );
}
