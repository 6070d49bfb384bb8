import type { Settings, SettingsPatch } from '../../../../shared/settings.js';
import { useSettings } from '../../stores/settings';

/** What a section of the Settings view is given: the settings shown, and how to save a change. */
export interface SettingsSectionProps {
  settings: Settings;
  save(patch: SettingsPatch): void;
}

/** Saves a change to the settings; a refusal is shown by the store's error, so the rejection is dropped here. */
export function useSaveSetting(): (patch: SettingsPatch) => void {
  const update = useSettings((s) => s.update);
  return (patch) => void update(patch).catch(() => {});
}
