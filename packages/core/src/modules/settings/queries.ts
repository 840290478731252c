/** Reads over the settings slice: other modules' deciders and the adapters read the instance's settings here. */
import type { ApplicationSettings, SettingsSlice } from './projection.js';
import { isRubyBlank } from '../shared/validation.js';

type Visibility = 'private' | 'internal' | 'public';

const str = (settings: ApplicationSettings, name: keyof ApplicationSettings): string | null => {
  const value = settings[name];
  return typeof value === 'string' ? value : null;
};
const int = (settings: ApplicationSettings, name: keyof ApplicationSettings): number => {
  const value = settings[name];
  return typeof value === 'number' ? value : 0;
};

export const defaultProjectVisibility = (slice: SettingsSlice): Visibility => (str(slice.values, 'default_project_visibility') ?? 'private') as Visibility;
export const defaultGroupVisibility = (slice: SettingsSlice): Visibility => (str(slice.values, 'default_group_visibility') ?? 'private') as Visibility;

/** `Gitlab::VisibilityLevel.allowed_for?`: administrators may use any level, others not a restricted one. */
export const visibilityRestricted = (slice: SettingsSlice, visibility: string): boolean => {
  const levels = slice.values.restricted_visibility_levels;
  return Array.isArray(levels) && (levels as readonly unknown[]).includes(visibility);
};

/** `deny_visibility_level`: the model error a non-administrator gets for a restricted level. */
export const restrictedVisibilityMessage = (visibility: string): string => `${visibility} has been restricted by your GitLab administrator`;

/** `default_project_creation`: 0 no one, 1 maintainers, 2 developers and maintainers. */
export const defaultProjectCreation = (slice: SettingsSlice): number => int(slice.values, 'default_project_creation');

/** The initial branch of new repositories (`default_branch_name`), or null for the platform's `master`. */
export const defaultBranchName = (slice: SettingsSlice): string | null => {
  const name = str(slice.values, 'default_branch_name');
  return name && !isRubyBlank(name) ? name : null;
};

/**
 * `default_branch_protection` (`Gitlab::Access`): 0 none, 1 Developers may push, 2 full (Maintainers push and
 * merge), 3 Developers may merge. What a new default branch is protected with.
 */
export const defaultBranchProtection = (slice: SettingsSlice): number => int(slice.values, 'default_branch_protection');

export const personalAccessTokenPrefix = (slice: SettingsSlice): string => str(slice.values, 'personal_access_token_prefix') ?? '';

export const settingBoolean = (slice: SettingsSlice, name: keyof ApplicationSettings): boolean => slice.values[name] === true;
export const settingInteger = (slice: SettingsSlice, name: keyof ApplicationSettings): number => int(slice.values, name);
export const settingString = (slice: SettingsSlice, name: keyof ApplicationSettings): string | null => str(slice.values, name);
/** A list setting's strings (`outbound_local_requests_whitelist`, …); anything else is an empty list. */
export const settingList = (slice: SettingsSlice, name: keyof ApplicationSettings): readonly string[] => {
  const value = slice.values[name];
  return Array.isArray(value) ? (value as readonly unknown[]).filter((item): item is string => typeof item === 'string') : [];
};
