import type { SettingValue } from './projection.js';

/**
 * `PUT /application/settings` after the API's own processing (parameter coercion, legacy names, the licence filter):
 * the fields to assign, by name. The model's validations are the decider's.
 */
export type SettingsCommand = { readonly type: 'ChangeSettings'; readonly changes: Readonly<Record<string, SettingValue>> };
