import type { JSX } from 'react';
import type { SettingsSectionProps } from './use-save-setting';

/** The recent cassette folders (the list the Cassettes and Export views offer), each one forgettable. */
export function RecentFoldersSection({ settings, save }: SettingsSectionProps): JSX.Element {
  return (
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
  );
}

/** The desktop window's remembered size and position. */
export function WindowSection({ settings, save }: SettingsSectionProps): JSX.Element {
  const inElectron = typeof window !== 'undefined' && !!window.rewind;
  return (
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
  );
}
