import type { JSX } from 'react';
import { useSettings } from '../stores/settings';
import { ProxiesSection } from './settings/ProxiesSection';
import { RecentFoldersSection, WindowSection } from './settings/StoredSections';
import { ThemeSection } from './settings/ThemeSection';
import { useSaveSetting } from './settings/use-save-setting';
import './settings/settings.css';

/** Whether the last change is saved, being saved, or was refused (and why). */
function SaveState({ error, saving, file }: { error?: string; saving: number; file?: string }): JSX.Element {
  return (
    <div className="save-state" aria-live="polite">
      {error ? (
        <span className="error">Not saved: {error}</span>
      ) : saving > 0 ? (
        'Saving…'
      ) : (
        <span className="muted">Saved to {file}</span>
      )}
    </div>
  );
}

/** Settings, saved as soon as they change, in settings.json of the user data folder (shared by both shells). */
export function SettingsView(): JSX.Element {
  const settings = useSettings((s) => s.settings);
  const file = useSettings((s) => s.file);
  const problem = useSettings((s) => s.problem);
  const error = useSettings((s) => s.error);
  const saving = useSettings((s) => s.saving);
  const save = useSaveSetting();

  if (!settings) {
    return (
      <p className={error ? 'error' : 'muted'}>{error ? `Cannot load the settings: ${error}` : 'Loading settings…'}</p>
    );
  }
  return (
    <div className="settings">
      {problem && (
        <section className="notice warning" role="note" aria-label="Settings file problem">
          <h2>The settings file could not be used</h2>
          <p className="small">{problem}</p>
        </section>
      )}
      <ThemeSection theme={settings.theme} save={save} />
      <ProxiesSection settings={settings} save={save} />
      <RecentFoldersSection settings={settings} save={save} />
      <WindowSection settings={settings} save={save} />
      <SaveState error={error} saving={saving} file={file} />
    </div>
  );
}
