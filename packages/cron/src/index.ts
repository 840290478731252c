export {
  BLANK_MESSAGE,
  CRON_INVALID_MESSAGE,
  CRON_TIMEZONE_INVALID_MESSAGE,
  DEFAULT_CRON_SETTINGS,
  DEFAULT_WORKER_CRON,
  cronSettingsError,
  cronTimezoneValid,
  cronValid,
  nextRunAt,
  nextTimeFrom,
  parseLine,
  scheduleCronErrors,
  stripCron,
  type CronFailure,
  type CronSettings,
  type NextTime,
} from './cron.js';
export { fugitNextTime, type EngineError, type FugitSteps } from './engine.js';
export { cronerPattern } from './fast.js';
export { determineFields, parseFields, type CronFields, type Element, type ParsedFields, type Weekday } from './parse.js';
export { IANA_ZONES } from './iana-zones.js';
export { RAILS_ZONES } from './rails-zones.js';
export { civilFields, daysFromCivil, fixedZone, localFields, localToUtc, wallString, type LocalFields, type Seconds, type Zone } from './zone.js';
export { getTzone, timezoneName } from './zones.js';
