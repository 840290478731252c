/**
 * Time-zone names as the platform reads them. `Gitlab::Ci::CronParser` first maps a Rails name
 * (`ActiveSupport::TimeZone.find_tzinfo(tz).name`, i.e. `MAPPING[tz] || tz`) and appends the result to the
 * cron line; fugit's grammar then takes it as a zone if it looks like `+05:30` or `Name/Name/Name`, and
 * EtOrbi's `get_tzone` resolves it: a few Windows aliases, fixed offsets up to ±11:59, else the IANA name,
 * dropping characters from the end until one matches ("Europe/Parisx" is Paris).
 */
import { IANA_ZONES } from './iana-zones.js';
import { RAILS_ZONES } from './rails-zones.js';
import { fixedZone, intlZone, type Zone } from './zone.js';

const IANA = new Set(IANA_ZONES);

/** `timezone_name`: the IANA name of a Rails zone name, anything else unchanged. */
export const timezoneName = (tz: string): string => (Object.hasOwn(RAILS_ZONES, tz) ? RAILS_ZONES[tz]! : tz);

/** EtOrbi's aliases that can pass fugit's zone grammar (the others contain spaces). */
const ALIASES: Readonly<Record<string, string>> = { 'UTC-11': 'Etc/GMT+11', 'UTC+12': 'Etc/GMT-12', 'UTC-02': 'Etc/GMT+2', CST5CDT: 'CST6CDT' };

/** EtOrbi adds these to its list of names, but TZInfo does not know them: reaching one raises. */
const UTC_PSEUDO = new Set(Array.from({ length: 13 }, (_, i) => [`UTC-${i}`, `UTC+${i}`]).flat());

export type ZoneLookup = { readonly kind: 'zone'; readonly zone: Zone } | { readonly kind: 'unknown' } | { readonly kind: 'raises' };

const zones = new Map<string, ZoneLookup>();

const ianaZone = (name: string): Zone => (name === 'Factory' ? fixedZone('Factory', 0) : intlZone(name)); // ICU lacks Factory, a constant -00

/** EtOrbi.get_tzone for the text fugit's grammar accepted as a zone. */
export const getTzone = (text: string): ZoneLookup => {
  const cached = zones.get(text);
  if (cached) return cached;
  const result = lookup(text);
  if (zones.size >= 10_000) zones.clear(); // zone texts come from users: keep the cache bounded
  zones.set(text, result);
  return result;
};

const lookup = (text: string): ZoneLookup => {
  const s = ALIASES[text] ?? text;
  const offset = /^([+-][0-1]?[0-9]):?([0-5][0-9])?$/.exec(s);
  if (offset) {
    const hr = Number.parseInt(offset[1]!, 10);
    let mn = offset[2] === undefined ? 0 : Number.parseInt(offset[2], 10);
    if (Math.abs(hr) <= 11) {
      if (hr < 0) mn = -mn; // "-00:30" is +00:30, as EtOrbi reads it
      return { kind: 'zone', zone: fixedZone(s, hr * 3600 + mn * 60) };
    }
  }
  for (let name = s; name.length > 0; name = name.slice(0, -1)) {
    if (IANA.has(name)) {
      try {
        return { kind: 'zone', zone: ianaZone(name) };
      } catch {
        return { kind: 'unknown' }; // a zone this node's ICU does not have (an older tzdata): invalid, not a crash
      }
    }
    if (UTC_PSEUDO.has(name)) return { kind: 'raises' };
  }
  return { kind: 'unknown' };
};

/** The zone of a name the platform already knows to be an IANA or Rails name (the instance zone). */
export const knownZone = (name: string): Zone | null => {
  const iana = timezoneName(name);
  if (!IANA.has(iana)) return null;
  try {
    return ianaZone(iana);
  } catch {
    return null;
  }
};
