/**
 * The events table's rows as the SQL stores read them (SQLite and PostgreSQL select the same columns): data and
 * metadata come as one JSON array text, which is one string to create and one JSON.parse per row instead of two
 * (about a tenth of a replay's read time). Both columns only ever hold JSON.stringify output.
 */
import type { EventMetadata, RecordedEvent } from './envelope.js';

export const EVENT_READ_COLUMNS = "global_position, event_id, stream_id, stream_version, type, schema_version, '[' || data || ',' || metadata || ']', recorded_at";

/** A row of `EVENT_READ_COLUMNS`. */
export type EventRow = [globalPosition: number, eventId: string, streamId: string, streamVersion: number, type: string, schemaVersion: number, dataAndMetadata: string, recordedAt: string];

/** A row as a RecordedEvent (a plain object literal: one shape for all, which V8 handles best). */
export const recordedFromRow = (row: EventRow): RecordedEvent => {
  const [data, metadata] = JSON.parse(row[6]) as [unknown, EventMetadata];
  return {
    eventId: row[1],
    type: row[4],
    schemaVersion: row[5],
    data,
    recordedAt: row[7],
    metadata,
    streamId: row[2],
    streamVersion: row[3],
    globalPosition: row[0],
  };
};
