/** The settings module's evolve: the changed fields take their new values. */
import type { Writable } from '../../kernel/module.js';
import type { SettingsEvent } from './events.js';
import { isSettingName, type SettingValue, type SettingsSlice } from './projection.js';

export type SettingsDraft = Writable<{ readonly settings: SettingsSlice }, 'settings'>;

export const evolve = (state: SettingsDraft, event: SettingsEvent): void => {
  switch (event.type) {
    case 'SettingsChanged': {
      const values = state.settings.values as Record<string, SettingValue>;
      for (const change of event.data.changes) if (isSettingName(change.field)) values[change.field] = change.new as SettingValue;
      state.settings.updated_at = event.data.at;
      return;
    }
  }
};
