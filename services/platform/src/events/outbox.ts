import type { Statement, Transaction } from "../db/database.js";
import { encodeEvent, type DomainEvent } from "./envelope.js";

/** An event's envelope as the statements pass it, base64 text (decoded into bytea by PostgreSQL). */
function payloadText(event: DomainEvent): string {
  return Buffer.from(encodeEvent(event)).toString("base64");
}

/** The statement that writes events into the schema's outbox; undefined for no events. */
function outboxInsert(schema: string, events: DomainEvent[]): Statement | undefined {
  if (events.length === 0) return undefined;
  const [only] = events;
  if (only && events.length === 1) {
    // Most writes make one event: a row of values costs PostgreSQL less than unnesting three
    // arrays.
    return {
      sql: `INSERT INTO ${schema}.outbox (id, subject, payload) VALUES ($1, $2, decode($3, 'base64'))`,
      params: [only.id, only.type, payloadText(only)],
      options: { prepared: true },
    };
  }
  const ids: string[] = [];
  const subjects: string[] = [];
  const payloads: string[] = [];
  for (const event of events) {
    ids.push(event.id);
    subjects.push(event.type);
    payloads.push(payloadText(event));
  }
  return {
    sql: `INSERT INTO ${schema}.outbox (id, subject, payload)
     SELECT i, s, decode(p, 'base64') FROM unnest($1::uuid[], $2::text[], $3::text[]) AS t(i, s, p)`,
    params: [ids, subjects, payloads],
    options: { prepared: true },
  };
}

/** Writes events into the schema's outbox when the transaction commits (on PostgreSQL, with the COMMIT). */
export function enqueueEvents(tx: Transaction, schema: string, events: DomainEvent[]): void {
  const insert = outboxInsert(schema, events);
  if (insert) tx.atCommit(insert);
}
