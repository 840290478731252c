/** The settings module: the instance's application settings, one slice other modules' deciders read. */
import { defineModule } from '../../kernel/module.js';
import type { SettingsCommand } from './commands.js';
import { decide, type SettingsView } from './decider.js';
import { evolve, type SettingsDraft } from './evolve.js';
import { settingsEvents } from './events.js';
import { initialSettings, type SettingsSlice } from './projection.js';

export const settingsModule = defineModule<'settings', { readonly settings: SettingsSlice }, SettingsView, SettingsDraft, SettingsCommand, typeof settingsEvents>({
  name: 'settings',
  // 2: a fresh instance's protected paths period is 60 s (snapshots of version 1 hold 10).
  version: 2,
  initial: () => ({ settings: initialSettings() }),
  events: settingsEvents,
  commands: ['ChangeSettings'],
  decide,
  evolve,
});
