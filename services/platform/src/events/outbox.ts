import type { Queryable } from "../db/database.js";
import { encodeEvent, type DomainEvent } from "./envelope.js";

/** Writes events into the schema's outbox inside the caller's transaction. */
export async function enqueueEvents(tx: Queryable, schema: string, events: DomainEvent[]): Promise<void> {
  if (events.length === 0) return;
  const ids: string[] = [];
  const subjects: string[] = [];
  const payloads: string[] = [];
  for (const event of events) {
    ids.push(event.id);
    subjects.push(event.type);
    payloads.push(Buffer.from(encodeEvent(event)).toString("base64"));
  }
  await tx.query(
    `INSERT INTO ${schema}.outbox (id, subject, payload)
     SELECT i, s, decode(p, 'base64') FROM unnest($1::uuid[], $2::text[], $3::text[]) AS t(i, s, p)`,
    [ids, subjects, payloads],
    { prepared: true },
  );
}
