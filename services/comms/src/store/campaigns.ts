import type { JsonObject } from "@bufbuild/protobuf";
import { newId, selectPage, type Queryable } from "@voiceops/platform";
import type { CallingWindow } from "../outbound/calling-window.js";
import {
  CAMPAIGN_COLUMNS,
  CONTACT_COLUMNS,
  emptyCounts,
  type CampaignContactRow,
  type CampaignRow,
  type CampaignStatusName,
  type ContactCounts,
  type ContactStatusName,
} from "./outbound-rows.js";

interface CampaignValues {
  name: string;
  agentPrompt: string | null;
  window: CallingWindow;
  timezone: string;
  maxAttempts: number;
  retryDelayMinutes: number;
  maxConcurrentCalls: number;
}

/** A contact row to add, already normalized. */
export interface NewCampaignContact {
  phoneNumber: string;
  name: string | null;
  email: string | null;
  contactId: string | null;
  timezone: string | null;
  variables: JsonObject;
  /** pending, or skipped_dnc for a number on the do-not-call list. */
  status: "pending" | "skipped_dnc";
}

export class CampaignStore {
  async insert(db: Queryable, orgId: string, values: CampaignValues): Promise<CampaignRow> {
    const result = await db.query<CampaignRow>(
      `INSERT INTO comms.campaigns (id, org_id, name, agent_prompt, window_start, window_end, window_days, timezone, max_attempts, retry_delay_minutes, max_concurrent_calls)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING ${CAMPAIGN_COLUMNS}`,
      [
        newId(),
        orgId,
        values.name,
        values.agentPrompt,
        values.window.start,
        values.window.end,
        values.window.days,
        values.timezone,
        values.maxAttempts,
        values.retryDelayMinutes,
        values.maxConcurrentCalls,
      ],
    );
    return result.rows[0] as CampaignRow;
  }

  async get(
    db: Queryable,
    orgId: string,
    id: string,
    lock: "" | "FOR UPDATE" | "FOR SHARE" = "",
  ): Promise<CampaignRow | undefined> {
    const result = await db.query<CampaignRow>(
      `SELECT ${CAMPAIGN_COLUMNS} FROM comms.campaigns WHERE org_id = $1 AND id = $2 ${lock}`,
      [orgId, id],
      { cacheable: lock === "" },
    );
    return result.rows[0];
  }

  async list(
    db: Queryable,
    orgId: string,
    query: { page: number; pageSize: number; status: string | undefined },
  ): Promise<{ rows: CampaignRow[]; total: number }> {
    const params: unknown[] = [orgId];
    let filter = "org_id = $1";
    if (query.status) {
      params.push(query.status);
      filter += ` AND status = $${params.length}`;
    }
    return selectPage<CampaignRow>(db, {
      total: `SELECT count(*)::int AS total FROM comms.campaigns WHERE ${filter}`,
      rows: `SELECT ${CAMPAIGN_COLUMNS} FROM comms.campaigns WHERE ${filter} ORDER BY created_at DESC, id DESC`,
      params,
      page: query.page,
      pageSize: query.pageSize,
    });
  }

  /** Contact counts by status of each campaign, in one query. */
  async counts(db: Queryable, campaignIds: readonly string[]): Promise<Map<string, ContactCounts>> {
    const out = new Map<string, ContactCounts>(campaignIds.map((id) => [id, emptyCounts()]));
    if (campaignIds.length === 0) return out;
    const result = await db.query<{ campaign_id: string; status: ContactStatusName; n: number }>(
      `SELECT campaign_id, status, count(*)::int AS n FROM comms.campaign_contacts
       WHERE campaign_id = ANY($1::uuid[]) GROUP BY campaign_id, status`,
      [campaignIds],
    );
    for (const row of result.rows) {
      const counts = out.get(row.campaign_id);
      if (counts && row.status in counts) counts[row.status] = Number(row.n);
    }
    return out;
  }

  async setStatus(
    db: Queryable,
    id: string,
    status: CampaignStatusName,
    stamps: { startedAt?: Date; completedAt?: Date; timezone?: string } = {},
  ): Promise<CampaignRow> {
    const result = await db.query<CampaignRow>(
      `UPDATE comms.campaigns SET status = $2, updated_at = now(),
         started_at = coalesce(started_at, $3), completed_at = coalesce($4, completed_at), timezone = coalesce($5, timezone)
       WHERE id = $1 RETURNING ${CAMPAIGN_COLUMNS}`,
      [id, status, stamps.startedAt ?? null, stamps.completedAt ?? null, stamps.timezone ?? null],
    );
    return result.rows[0] as CampaignRow;
  }

  /**
   * Adds contacts in one statement; a number already in the campaign is left alone. Returns
   * the numbers added with their status.
   */
  async addContacts(
    db: Queryable,
    orgId: string,
    campaignId: string,
    contacts: readonly NewCampaignContact[],
  ): Promise<{ phone_number: string; status: string }[]> {
    if (contacts.length === 0) return [];
    const result = await db.query<{ phone_number: string; status: string }>(
      `INSERT INTO comms.campaign_contacts (id, org_id, campaign_id, phone_number, name, email, contact_id, timezone, variables, status)
       SELECT t.id, $1, $2, t.phone, t.name, t.email, t.contact_id, t.timezone, t.variables::jsonb, t.status
       FROM unnest($3::uuid[], $4::text[], $5::text[], $6::text[], $7::uuid[], $8::text[], $9::text[], $10::text[])
         AS t(id, phone, name, email, contact_id, timezone, variables, status)
       ON CONFLICT (campaign_id, phone_number) DO NOTHING
       RETURNING phone_number, status`,
      [
        orgId,
        campaignId,
        contacts.map(() => newId()),
        contacts.map((c) => c.phoneNumber),
        contacts.map((c) => c.name),
        contacts.map((c) => c.email),
        contacts.map((c) => c.contactId),
        contacts.map((c) => c.timezone),
        contacts.map((c) => JSON.stringify(c.variables)),
        contacts.map((c) => c.status),
      ],
    );
    return result.rows;
  }

  async listContacts(
    db: Queryable,
    orgId: string,
    campaignId: string,
    query: { page: number; pageSize: number; status: string | undefined },
  ): Promise<{ rows: CampaignContactRow[]; total: number }> {
    const params: unknown[] = [orgId, campaignId];
    let filter = "org_id = $1 AND campaign_id = $2";
    if (query.status) {
      params.push(query.status);
      filter += ` AND status = $${params.length}`;
    }
    return selectPage<CampaignContactRow>(db, {
      total: `SELECT count(*)::int AS total FROM comms.campaign_contacts WHERE ${filter}`,
      rows: `SELECT ${CONTACT_COLUMNS} FROM comms.campaign_contacts WHERE ${filter} ORDER BY id`,
      params,
      page: query.page,
      pageSize: query.pageSize,
    });
  }

  async contactCount(db: Queryable, campaignId: string): Promise<number> {
    const result = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM comms.campaign_contacts WHERE campaign_id = $1`,
      [campaignId],
    );
    return Number(result.rows[0]?.n ?? 0);
  }

  /**
   * Withdraws a campaign's calls not yet claimed: its queued requests are cancelled; on pause
   * their contacts go back to pending, on cancel every pending or queued contact is cancelled.
   * Requests are updated before contacts, the order every writer of both keeps.
   */
  async withdraw(db: Queryable, campaignId: string, mode: "pause" | "cancel"): Promise<string[]> {
    const cancelled = await db.query<{ id: string }>(
      `UPDATE comms.call_requests SET status = 'cancelled', lease_expires_at = NULL, updated_at = now()
       WHERE campaign_id = $1 AND status = 'queued' RETURNING id`,
      [campaignId],
    );
    await db.query(
      `UPDATE comms.campaign_contacts SET status = $2, next_attempt_at = NULL, updated_at = now()
       WHERE campaign_id = $1 AND status = ANY($3::text[])`,
      [campaignId, mode === "pause" ? "pending" : "cancelled", mode === "pause" ? ["queued"] : ["queued", "pending"]],
    );
    return cancelled.rows.map((row) => row.id);
  }

  /** Running campaigns, for the scheduler (each is then locked on its own). */
  async runningIds(db: Queryable, limit: number): Promise<{ id: string; org_id: string }[]> {
    const result = await db.query<{ id: string; org_id: string }>(
      `SELECT id, org_id FROM comms.campaigns WHERE status = 'running' ORDER BY id LIMIT $1`,
      [limit],
    );
    return result.rows;
  }

  /** Locks a running campaign for this transaction, or undefined when another replica holds it. */
  async lockRunning(db: Queryable, id: string): Promise<CampaignRow | undefined> {
    const result = await db.query<CampaignRow>(
      `SELECT ${CAMPAIGN_COLUMNS} FROM comms.campaigns WHERE id = $1 AND status = 'running' FOR UPDATE SKIP LOCKED`,
      [id],
    );
    return result.rows[0];
  }

  /** Contacts queued or dialing: the calls a campaign has in flight. */
  async inFlight(db: Queryable, campaignId: string): Promise<number> {
    const result = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM comms.campaign_contacts WHERE campaign_id = $1 AND status IN ('queued', 'dialing')`,
      [campaignId],
    );
    return Number(result.rows[0]?.n ?? 0);
  }

  /** Contacts still to call (pending, queued or dialing). */
  async remaining(db: Queryable, campaignId: string): Promise<number> {
    const result = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM comms.campaign_contacts WHERE campaign_id = $1 AND status IN ('pending', 'queued', 'dialing')`,
      [campaignId],
    );
    return Number(result.rows[0]?.n ?? 0);
  }

  /**
   * Pending contacts that are due, in the order they were added, locked (others' locks
   * skipped). Without `openForAll`, only contacts with a zone of their own are considered: the
   * campaign's window is closed in its zone.
   */
  async lockDueContacts(
    db: Queryable,
    campaignId: string,
    now: Date,
    limit: number,
    openForAll: boolean,
  ): Promise<CampaignContactRow[]> {
    const result = await db.query<CampaignContactRow>(
      `SELECT ${CONTACT_COLUMNS} FROM comms.campaign_contacts
       WHERE campaign_id = $1 AND status = 'pending' AND (next_attempt_at IS NULL OR next_attempt_at <= $2)
         AND ($4 OR timezone IS NOT NULL)
       ORDER BY next_attempt_at NULLS FIRST, id LIMIT $3 FOR UPDATE SKIP LOCKED`,
      [campaignId, now, limit, openForAll],
    );
    return result.rows;
  }

  /**
   * While the campaign's window is closed, its due pending contacts (those read in the
   * campaign's zone) wait for the next opening: one statement, once per closing.
   */
  async deferPending(db: Queryable, campaignId: string, until: Date): Promise<number> {
    const result = await db.query(
      `UPDATE comms.campaign_contacts SET next_attempt_at = $2, updated_at = now()
       WHERE campaign_id = $1 AND status = 'pending' AND timezone IS NULL AND (next_attempt_at IS NULL OR next_attempt_at < $2)`,
      [campaignId, until],
    );
    return result.rowCount;
  }

  async getContact(db: Queryable, id: string): Promise<CampaignContactRow | undefined> {
    const result = await db.query<CampaignContactRow>(
      `SELECT ${CONTACT_COLUMNS} FROM comms.campaign_contacts WHERE id = $1`,
      [id],
    );
    return result.rows[0];
  }

  /** Sets the given fields of contacts; `attempts: 1` adds one call to their count. */
  async updateContacts(
    db: Queryable,
    ids: readonly string[],
    change: {
      status: ContactStatusName;
      nextAttemptAt?: Date | null;
      lastAttemptAt?: Date;
      addAttempt?: boolean;
      disposition?: string;
      sessionId?: string | null;
    },
  ): Promise<void> {
    if (ids.length === 0) return;
    const params: unknown[] = [ids, change.status];
    const sets = ["status = $2", "updated_at = now()"];
    if (change.nextAttemptAt !== undefined) {
      params.push(change.nextAttemptAt);
      sets.push(`next_attempt_at = $${params.length}`);
    }
    if (change.lastAttemptAt !== undefined) {
      params.push(change.lastAttemptAt);
      sets.push(`last_attempt_at = $${params.length}`);
    }
    if (change.addAttempt) sets.push("attempts = attempts + 1");
    if (change.disposition !== undefined) {
      params.push(change.disposition);
      sets.push(`disposition = $${params.length}`);
    }
    if (change.sessionId) {
      params.push(change.sessionId);
      sets.push(`last_session_id = $${params.length}`);
    }
    await db.query(`UPDATE comms.campaign_contacts SET ${sets.join(", ")} WHERE id = ANY($1::uuid[])`, params);
  }
}
