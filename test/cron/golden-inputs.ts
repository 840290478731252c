/**
 * The inputs of the golden vectors (test/cron/golden.json holds the answers). `why` says what each one pins;
 * where the platform's fugit 1.2 and the oracle's newer fugit part, `why` names the quirk.
 */
export interface GoldenInput {
  readonly cron: string;
  readonly tz: string;
  readonly from: string;
  readonly why: string;
}

export const GOLDEN_INPUTS: readonly GoldenInput[] = [
  // The reference's own examples (project-resources.md §1.17).
  { cron: '*/5 * * * *', tz: 'UTC', from: '2022-01-10T10:00:30.000Z', why: 'ideal 10:05, rounded to the worker tick 10:13' },
  { cron: '0 1 * * *', tz: 'UTC', from: '2022-01-10T10:00:30.000Z', why: 'ideal 01:00 next day, rounded to 01:03' },
  { cron: '3 10 * * *', tz: 'UTC', from: '2022-01-10T10:00:30.000Z', why: 'the ideal time is the worker’s next tick: kept' },
  { cron: '13 * * * *', tz: 'UTC', from: '2022-01-10T10:00:30.000Z', why: 'ideal 10:13 is a worker tick but not the next one (10:03): moved to 10:23' },
  { cron: '0 0 * * *', tz: 'UTC', from: '2022-01-10T23:59:59.999Z', why: 'strictly after the start' },
  { cron: '0 0 * * *', tz: 'UTC', from: '2022-01-11T00:00:00.000Z', why: 'a start on a run is not that run' },
  { cron: '0 0 * * *', tz: 'UTC', from: '2022-01-11T00:00:00.700Z', why: 'fractions of a second are dropped first' },
  // Rails zone names, mapped by ActiveSupport 6.1.
  { cron: '0 9 * * 1-5', tz: 'Pacific Time (US & Canada)', from: '2022-01-14T18:00:00.000Z', why: 'Rails name → America/Los_Angeles; Friday 10:00 local is past, next Monday' },
  { cron: '30 8 * * *', tz: 'Astana', from: '2022-01-10T00:00:00.000Z', why: 'Astana is Asia/Dhaka in Rails 6.1' },
  { cron: '30 8 * * *', tz: 'Canberra', from: '2022-01-10T00:00:00.000Z', why: 'Canberra is Australia/Melbourne in Rails 6.1' },
  { cron: '0 12 * * *', tz: 'International Date Line West', from: '2022-01-10T00:00:00.000Z', why: 'Etc/GMT+12' },
  { cron: '0 12 * * *', tz: 'Kyiv', from: '2022-07-10T00:00:00.000Z', why: 'Europe/Kiev' },
  { cron: '0 12 * * *', tz: 'Chennai', from: '2022-07-10T00:00:00.000Z', why: 'Asia/Kolkata, +05:30' },
  // IANA names and what EtOrbi makes of other text.
  { cron: '0 12 * * *', tz: 'Asia/Kathmandu', from: '2022-07-10T00:00:00.000Z', why: '+05:45' },
  { cron: '0 12 * * *', tz: 'US/Pacific', from: '2022-07-10T00:00:00.000Z', why: 'a backward link' },
  { cron: '0 12 * * *', tz: '+05:30', from: '2022-07-10T00:00:00.000Z', why: 'a fixed offset' },
  { cron: '0 12 * * *', tz: '-00:30', from: '2022-07-10T00:00:00.000Z', why: 'EtOrbi reads -00:30 as +00:30' },
  { cron: '0 12 * * *', tz: 'Europe/Parisx', from: '2022-07-10T00:00:00.000Z', why: 'EtOrbi drops characters until a zone matches: Paris' },
  { cron: '0 12 * * *', tz: 'Mars/Olympus', from: '2022-07-10T00:00:00.000Z', why: 'unknown zone: invalid' },
  { cron: '0 12 * * *', tz: 'america/new_york', from: '2022-07-10T00:00:00.000Z', why: 'zone names are case-sensitive' },
  { cron: '0 12 * * *', tz: '+12:00', from: '2022-07-10T00:00:00.000Z', why: 'EtOrbi offsets stop at ±11:59' },
  { cron: '0 12 * * *', tz: 'Sun', from: '2022-07-10T00:00:00.000Z', why: '"* * * * * Sun" parses as six fields: a valid zone; the schedule becomes "0 12 * * * Sun" in the instance zone' },
  // fugit's syntax.
  { cron: '/15 * * * *', tz: 'UTC', from: '2022-07-10T00:07:00.000Z', why: 'a bare /15 is */15' },
  { cron: '0 9 * * sun%2', tz: 'UTC', from: '2022-07-10T00:00:00.000Z', why: 'every other Sunday, counted from 2019-01-01' },
  { cron: '0 9 * * sun%2+1', tz: 'UTC', from: '2022-07-10T00:00:00.000Z', why: 'the other Sundays' },
  { cron: '0 9 * * mon%3+1', tz: 'UTC', from: '2022-07-10T00:00:00.000Z', why: 'fugit 1.2: rweek % 3 == 1 (1.5 reads it as (rweek + 1) % 3 == 0): weekday-modulo quirk' },
  { cron: '0 9 * * fri#-1', tz: 'UTC', from: '2022-07-10T00:00:00.000Z', why: 'the last Friday' },
  { cron: '0 9 * * 2#-2', tz: 'UTC', from: '2022-07-10T00:00:00.000Z', why: 'the second-to-last Tuesday' },
  { cron: '0 9 L * *', tz: 'UTC', from: '2022-02-10T00:00:00.000Z', why: 'the last day of February' },
  { cron: '0 9 -3 * *', tz: 'UTC', from: '2022-02-10T00:00:00.000Z', why: 'three days before the end' },
  { cron: '0 9 1 * mon', tz: 'UTC', from: '2022-02-10T00:00:00.000Z', why: 'both days restricted: either matches' },
  { cron: '0 9 1 * */1', tz: 'UTC', from: '2022-02-10T00:00:00.000Z', why: '*/1 in weekdays lists every day, so every day matches' },
  { cron: '0 9 * * *,1', tz: 'UTC', from: '2022-02-10T00:00:00.000Z', why: '"*,1" in weekdays is Mondays only' },
  { cron: '5/15 * * * *', tz: 'UTC', from: '2022-02-10T00:07:00.000Z', why: 'fugit 1.2: a/n is a alone (1.5: 5-59/15): start-slash quirk' },
  { cron: '50-10 * * * *', tz: 'UTC', from: '2022-02-10T00:20:00.000Z', why: 'fugit 1.2 swaps a reversed range (1.5 wraps around): reversed-range quirk' },
  { cron: '0 24 * * *', tz: 'UTC', from: '2022-02-10T01:00:00.000Z', why: 'hour 24 is 0' },
  { cron: '0 0 29 2 *', tz: 'UTC', from: '2022-03-01T00:00:00.000Z', why: 'the next 29 February' },
  { cron: '0 0 30 1,2 mon', tz: 'UTC', from: '2022-02-01T00:00:00.000Z', why: 'February is dropped (no 30th), so its Mondays do not fire' },
  { cron: '30 0 0 * * *', tz: 'UTC', from: '2022-02-10T00:00:00.000Z', why: 'six fields: seconds first' },
  { cron: '@daily', tz: 'UTC', from: '2022-02-10T00:00:00.000Z', why: 'aliases are rejected (a zone is appended)' },
  { cron: '*/0 * * * *', tz: 'UTC', from: '2022-02-10T00:00:00.000Z', why: 'a zero step raises on the platform: invalid here' },
  { cron: '0 0 30 2 *', tz: 'UTC', from: '2022-02-10T00:00:00.000Z', why: 'no such day: invalid' },
  // DST: spring forward.
  { cron: '0 0 * * 1', tz: 'Europe/Berlin', from: '2021-03-27T23:30:00.000Z', why: 'spring forward on Sunday 28 March: inc_day lands on Monday 01:00, Monday 00:00 is skipped (1.5 keeps it): dst quirk' },
  { cron: '21 * 1,27 * *', tz: 'Europe/Paris', from: '2023-03-25T08:41:01.086Z', why: 'the day after the spring-forward day starts at 01:00 for fugit 1.2: 00:21 skipped: dst quirk' },
  { cron: '30 2 * * *', tz: 'Europe/Berlin', from: '2021-03-27T12:00:00.000Z', why: '02:30 does not exist on 28 March: next is the 29th' },
  { cron: '30 2 * * *', tz: 'America/New_York', from: '2021-03-13T12:00:00.000Z', why: '02:30 does not exist on 14 March' },
  { cron: '*/30 * * * *', tz: 'America/New_York', from: '2021-03-14T06:45:00.000Z', why: 'minutes across the gap: 01:30 EST, then 03:00 EDT' },
  { cron: '0 0 * * *', tz: 'America/Santiago', from: '2022-09-10T12:00:00.000Z', why: 'midnight does not exist on 11 September in Santiago' },
  { cron: '0 0 1 * *', tz: 'America/Asuncion', from: '2023-09-15T12:00:00.000Z', why: '1 October 2023 starts in the gap (00:00 → 01:00): fugit raises TZInfo::PeriodNotFound' },
  { cron: '0 0 * * *', tz: 'America/Asuncion', from: '2023-09-30T12:00:00.000Z', why: 'daily midnight across that gap: inc_day skips the 1st (its 23 h), 2 October 00:00' },
  // DST: fall back.
  { cron: '30 1 * * *', tz: 'America/New_York', from: '2021-11-07T05:33:05.000Z', why: 'fall back: 01:30 EDT has run, 01:30 EST is next (fires twice)' },
  { cron: '30 1 * * *', tz: 'America/New_York', from: '2021-11-07T05:30:00.000Z', why: 'started on the first 01:30: the guard skips the repeat when it reads like the start (here it does not: the start is read in UTC)' },
  { cron: '30 2 * * *', tz: 'Europe/Berlin', from: '2021-10-31T00:30:00.000Z', why: 'fall back in Berlin: 02:30 CEST then 02:30 CET' },
  { cron: '0 * * * *', tz: 'Europe/Berlin', from: '2021-10-31T00:10:00.000Z', why: 'hourly through the repeated hour' },
  { cron: '0 2 * * *', tz: 'Australia/Sydney', from: '2022-04-02T12:00:00.000Z', why: 'southern fall back (3 April 03:00 → 02:00)' },
  { cron: '0 2 * * *', tz: 'Australia/Sydney', from: '2022-09-30T12:00:00.000Z', why: 'southern spring forward (2 October 02:00 → 03:00)' },
  { cron: '30 2 * * *', tz: 'Australia/Lord_Howe', from: '2022-10-01T12:00:00.000Z', why: 'a half-hour DST shift' },
  // fugit 1.2's duplicate guard compares with the start's UTC wall clock.
  { cron: '0 10 * * *', tz: 'America/New_York', from: '2021-06-01T10:00:00.300Z', why: '10:00 EDT reads like the start (10:00:00 UTC): skipped by fugit 1.2 (1.5 also compares the offset): wall-string-guard quirk' },
  { cron: '3 10 * * *', tz: 'America/New_York', from: '2021-06-01T10:03:00.500Z', why: 'the same at a worker tick: a schedule at 10:03 New York time computed at 10:03 UTC loses that day (wall-string-guard quirk)' },
  // The worker's grid.
  { cron: '* * * * *', tz: 'UTC', from: '2022-01-10T10:03:00.000Z', why: 'every minute: the next worker tick, 10:13' },
  { cron: '* * * * *', tz: 'UTC', from: '2022-01-10T10:02:59.000Z', why: 'ideal 10:03:00 is the worker’s next tick: kept' },
  { cron: '0 0 1 1 *', tz: 'Asia/Tokyo', from: '2022-06-10T00:00:00.000Z', why: 'yearly, in a zone east of UTC: 1 January 00:00 JST is 31 December 15:00 UTC, rounded to 15:03' },
];
