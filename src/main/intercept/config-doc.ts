import type { ConfigFormat } from '../../shared/intercept.js';
import { openJsonDoc } from './config-json.js';
import { openTomlDoc } from './config-toml.js';
import type { ConfigDoc } from './config-types.js';

export { MalformedConfig, type ConfigDoc, type NewValue } from './config-types.js';

/** A config file of its format, parsed for reading and minimal edits (MalformedConfig when it is not). */
export function openConfigDoc(text: string, format: ConfigFormat): ConfigDoc {
  return format === 'toml' ? openTomlDoc(text) : openJsonDoc(text, format);
}
