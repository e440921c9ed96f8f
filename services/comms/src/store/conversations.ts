import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { newId, type Queryable } from "@voiceops/platform";
import { CONVERSATION_COLUMNS, MESSAGE_COLUMNS, type ConversationRow, type MessageRow } from "./conversation-rows.js";
import { commsErrors } from "../errors.js";

/** The state keys of caller memory; summary_updated_at is the server's. */
export const SUMMARY = "summary";
export const SUMMARY_UPDATED_AT = "summary_updated_at";

function sameJson(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Shallow merge of a state patch: a key set to null is removed, any other value replaces the
 * stored one. summary_updated_at is stamped when summary changes and goes when summary goes;
 * a client's own summary_updated_at is ignored.
 */
function mergeState(stored: JsonObject, patch: JsonObject, now: Date): JsonObject {
  const state: JsonObject = { ...stored };
  for (const [key, value] of Object.entries(patch)) {
    if (key === SUMMARY_UPDATED_AT) continue;
    if (value === null) delete state[key];
    else state[key] = value;
  }
  if (SUMMARY in patch) {
    if (state[SUMMARY] === undefined) delete state[SUMMARY_UPDATED_AT];
    else if (!sameJson(stored[SUMMARY], state[SUMMARY]) || state[SUMMARY_UPDATED_AT] === undefined)
      state[SUMMARY_UPDATED_AT] = now.toISOString();
  }
  return state;
}

export class ConversationStore {
  async list(
    db: Queryable,
    orgId: string,
    query: { phones: string[] | undefined; channel: string | undefined; limit: number },
  ): Promise<ConversationRow[]> {
    const params: unknown[] = [orgId];
    const where = ["org_id = $1"];
    if (query.phones) {
      params.push(query.phones);
      where.push(`phone_number = ANY($${params.length}::text[])`);
    }
    if (query.channel) {
      params.push(query.channel);
      where.push(`channel = $${params.length}`);
    }
    params.push(query.limit);
    const result = await db.query<ConversationRow>(
      `SELECT ${CONVERSATION_COLUMNS} FROM comms.conversations WHERE ${where.join(" AND ")} ORDER BY updated_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
    return result.rows;
  }

  async get(
    db: Queryable,
    orgId: string,
    id: string,
    options: { lock?: boolean } = {},
  ): Promise<ConversationRow | undefined> {
    const result = await db.query<ConversationRow>(
      `SELECT ${CONVERSATION_COLUMNS} FROM comms.conversations WHERE org_id = $1 AND id = $2${options.lock ? " FOR UPDATE" : ""}`,
      [orgId, id],
      {
        cacheable: !options.lock,
      },
    );
    return result.rows[0];
  }

  /** Merges the patch into the active conversation of the phone and channel, or starts one. */
  async upsert(
    db: Queryable,
    orgId: string,
    phone: string,
    channel: string,
    patch: JsonObject,
    now: Date,
  ): Promise<{ row: ConversationRow; created: boolean }> {
    // Two tries: a conversation started concurrently makes the insert a no-op, then it is found.
    for (let attempt = 0; attempt < 2; attempt++) {
      const found = await db.query<ConversationRow>(
        `SELECT ${CONVERSATION_COLUMNS} FROM comms.conversations WHERE org_id = $1 AND phone_number = $2 AND channel = $3 AND is_active FOR UPDATE`,
        [orgId, phone, channel],
      );
      const existing = found.rows[0];
      if (existing) {
        const updated = await db.query<ConversationRow>(
          `UPDATE comms.conversations SET conversation_state = $3::jsonb, updated_at = $4 WHERE org_id = $1 AND id = $2 RETURNING ${CONVERSATION_COLUMNS}`,
          [orgId, existing.id, JSON.stringify(mergeState(existing.conversation_state, patch, now)), now],
        );
        return { row: updated.rows[0] as ConversationRow, created: false };
      }
      const inserted = await db.query<ConversationRow>(
        `INSERT INTO comms.conversations (id, org_id, phone_number, channel, conversation_state, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5::jsonb, $6, $6)
         ON CONFLICT (org_id, phone_number, channel) WHERE is_active DO NOTHING RETURNING ${CONVERSATION_COLUMNS}`,
        [newId(), orgId, phone, channel, JSON.stringify(mergeState({}, patch, now)), now],
      );
      if (inserted.rows[0]) return { row: inserted.rows[0], created: true };
    }
    throw commsErrors.CONVERSATION_CHANGED_CONCURRENTLY();
  }

  async end(
    db: Queryable,
    orgId: string,
    id: string,
    now: Date,
  ): Promise<{ row: ConversationRow; changed: boolean } | undefined> {
    const result = await db.query<ConversationRow>(
      `UPDATE comms.conversations SET is_active = false, ended_at = $3, updated_at = $3 WHERE org_id = $1 AND id = $2 AND is_active
       RETURNING ${CONVERSATION_COLUMNS}`,
      [orgId, id, now],
    );
    if (result.rows[0]) return { row: result.rows[0], changed: true };
    const row = await this.get(db, orgId, id);
    return row ? { row, changed: false } : undefined;
  }

  async delete(db: Queryable, orgId: string, id: string): Promise<boolean> {
    const result = await db.query(`DELETE FROM comms.conversations WHERE org_id = $1 AND id = $2`, [orgId, id]);
    return result.rowCount > 0;
  }

  /**
   * Appends a message to an active conversation, moving its counters in the same transaction.
   * "missing" when there is no such conversation, "ended" when it is no longer active.
   */
  async addMessage(
    db: Queryable,
    orgId: string,
    conversationId: string,
    message: { role: string; content: string; metadata: JsonObject },
    now: Date,
  ): Promise<{ message: MessageRow; count: number } | "missing" | "ended"> {
    const counted = await db.query<{ message_count: number }>(
      `UPDATE comms.conversations SET message_count = message_count + 1, last_message_at = $3, updated_at = $3
       WHERE org_id = $1 AND id = $2 AND is_active RETURNING message_count`,
      [orgId, conversationId, now],
    );
    const count = counted.rows[0]?.message_count;
    if (count === undefined) return (await this.get(db, orgId, conversationId)) ? "ended" : "missing";
    const inserted = await db.query<MessageRow>(
      `INSERT INTO comms.conversation_messages (id, org_id, conversation_id, position, role, content, metadata, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8) RETURNING ${MESSAGE_COLUMNS}`,
      [newId(), orgId, conversationId, count, message.role, message.content, JSON.stringify(message.metadata), now],
    );
    return { message: inserted.rows[0] as MessageRow, count };
  }

  /** The latest `limit` messages, oldest of them first. */
  async latestMessages(db: Queryable, orgId: string, conversationId: string, limit: number): Promise<MessageRow[]> {
    const result = await db.query<MessageRow>(
      `SELECT ${MESSAGE_COLUMNS} FROM comms.conversation_messages WHERE org_id = $1 AND conversation_id = $2 ORDER BY position DESC LIMIT $3`,
      [orgId, conversationId, limit],
    );
    return result.rows.reverse();
  }

  /** The caller's most recent phone conversation that holds a summary. */
  async memory(db: Queryable, orgId: string, phone: string): Promise<ConversationRow | undefined> {
    const result = await db.query<ConversationRow>(
      `SELECT ${CONVERSATION_COLUMNS} FROM comms.conversations
       WHERE org_id = $1 AND phone_number = $2 AND channel = 'phone' AND conversation_state ? 'summary'
       ORDER BY updated_at DESC, id DESC LIMIT 1`,
      [orgId, phone],
    );
    return result.rows[0];
  }

  /** Removes summary and summary_updated_at from the caller's phone conversations; returns those changed. */
  async clearMemory(db: Queryable, orgId: string, phone: string): Promise<ConversationRow[]> {
    const result = await db.query<ConversationRow>(
      `UPDATE comms.conversations SET conversation_state = conversation_state - 'summary' - 'summary_updated_at'
       WHERE org_id = $1 AND phone_number = $2 AND channel = 'phone'
         AND (conversation_state ? 'summary' OR conversation_state ? 'summary_updated_at')
       RETURNING ${CONVERSATION_COLUMNS}`,
      [orgId, phone],
    );
    return result.rows;
  }
}
