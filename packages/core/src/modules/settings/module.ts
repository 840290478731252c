/** The settings module: the instance's application settings, one slice other modules' deciders read. */
import { defineModule } from '../../kernel/module.js';
import type { SettingsCommand } from './commands.js';
import { decide, type SettingsView } from './decider.js';
import { evolve, type SettingsDraft } from './evolve.js';
import { settingsEvents } from './events.js';
import { initialSettings, type SettingsSlice } from './projection.js';

export const settingsModule = defineModule<'settings', { readonly settings: SettingsSlice }, SettingsView, SettingsDraft, SettingsCommand, typeof settingsEvents>({
  name: 'settings',
  version: 1,
  initial: () => ({ settings: initialSettings() }),
  events: settingsEvents,
  commands: ['ChangeSettings'],
  decide,
  evolve,
});
