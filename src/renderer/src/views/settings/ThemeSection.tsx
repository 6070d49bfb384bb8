import type { JSX } from 'react';
import { THEMES, type SettingsPatch, type Theme } from '../../../../shared/settings.js';

const THEME_LABELS: Record<Theme, string> = { system: 'System', light: 'Light', dark: 'Dark' };

/** The theme radios: System, Light, Dark. */
export function ThemeSection({ theme, save }: { theme: Theme; save(patch: SettingsPatch): void }): JSX.Element {
  return (
    <section className="card">
      <fieldset>
        <legend>Theme</legend>
        <div className="theme-choices" role="radiogroup" aria-label="Theme">
          {THEMES.map((choice) => (
            <label key={choice} className="theme-choice">
              <input
                type="radio"
                name="theme"
                value={choice}
                checked={theme === choice}
                onChange={() => save({ theme: choice })}
              />
              <span className={`swatch ${choice}`} aria-hidden="true" />
              {THEME_LABELS[choice]}
            </label>
          ))}
        </div>
        <p className="hint">System follows your operating system's light or dark preference.</p>
      </fieldset>
    </section>
  );
}
