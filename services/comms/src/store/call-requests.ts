import type { JsonObject } from "@bufbuild/protobuf";
import { newId, selectPage, type Queryable } from "@voiceops/platform";
import type { CallingWindow } from "../outbound/calling-window.js";
import { REQUEST_COLUMNS, type CallRequestRow, type RequestStatusName } from "./outbound-rows.js";

/** A call request to store (always queued). */
export interface NewCallRequest {
  orgId: string;
  phoneNumber: string;
  contactId: string | null;
  campaignId: string | null;
  campaignContactId: string | null;
  agentPrompt: string | null;
  variables: JsonObject;
  scheduledFor: Date;
  maxAttempts: number;
  timezone: string;
  window: CallingWindow;
  /** Set when it is announced at once (due now, inside its window). */
  announcedAt: Date | null;
  windowClosesAt: Date | null;
}

const RETURNING = `RETURNING ${REQUEST_COLUMNS}`;

// Lock order: a writer that touches a campaign, its requests and its contacts locks them in
// that order (campaign, then requests, then contacts), so two writers never wait on each other
// in a cycle.

export class CallRequestStore {
  async insert(db: Queryable, requests: readonly NewCallRequest[]): Promise<CallRequestRow[]> {
    if (requests.length === 0) return [];
    const col = <T>(pick: (r: NewCallRequest) => T) => requests.map(pick);
    const result = await db.query<CallRequestRow>(
      `INSERT INTO comms.call_requests (id, org_id, phone_number, contact_id, campaign_id, campaign_contact_id, agent_prompt, variables, status,
         scheduled_for, max_attempts, timezone, window_start, window_end, window_days, announced_at, window_closes_at)
       SELECT t.id, t.org_id, t.phone, t.contact_id, t.campaign_id, t.campaign_contact_id, t.agent_prompt, t.variables::jsonb, 'queued',
         t.scheduled_for, t.max_attempts, t.timezone, t.window_start, t.window_end, string_to_array(t.window_days, ','), t.announced_at, t.window_closes_at
       FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::uuid[], $5::uuid[], $6::uuid[], $7::text[], $8::text[], $9::timestamptz[],
         $10::int[], $11::text[], $12::text[], $13::text[], $14::text[], $15::timestamptz[], $16::timestamptz[])
         AS t(id, org_id, phone, contact_id, campaign_id, campaign_contact_id, agent_prompt, variables, scheduled_for,
           max_attempts, timezone, window_start, window_end, window_days, announced_at, window_closes_at)
       ${RETURNING}`,
      [
        col(() => newId()),
        col((r) => r.orgId),
        col((r) => r.phoneNumber),
        col((r) => r.contactId),
        col((r) => r.campaignId),
        col((r) => r.campaignContactId),
        col((r) => r.agentPrompt),
        col((r) => JSON.stringify(r.variables)),
        col((r) => r.scheduledFor),
        col((r) => r.maxAttempts),
        col((r) => r.timezone),
        col((r) => r.window.start),
        col((r) => r.window.end),
        col((r) => r.window.days.join(",")),
        col((r) => r.announcedAt),
        col((r) => r.windowClosesAt),
      ],
    );
    return result.rows;
  }

  async get(
    db: Queryable,
    orgId: string,
    id: string,
    lock: "" | "FOR UPDATE" = "",
  ): Promise<CallRequestRow | undefined> {
    const result = await db.query<CallRequestRow>(
      `SELECT ${REQUEST_COLUMNS} FROM comms.call_requests WHERE org_id = $1 AND id = $2 ${lock}`,
      [orgId, id],
      {
        cacheable: lock === "",
      },
    );
    return result.rows[0];
  }

  async list(
    db: Queryable,
    orgId: string,
    query: { page: number; pageSize: number; status: string | undefined; campaignId: string | undefined },
  ): Promise<{ rows: CallRequestRow[]; total: number }> {
    const params: unknown[] = [orgId];
    let filter = "org_id = $1";
    if (query.status) {
      params.push(query.status);
      filter += ` AND status = $${params.length}`;
    }
    if (query.campaignId) {
      params.push(query.campaignId);
      filter += ` AND campaign_id = $${params.length}`;
    }
    return selectPage<CallRequestRow>(db, {
      total: `SELECT count(*)::int AS total FROM comms.call_requests WHERE ${filter}`,
      rows: `SELECT ${REQUEST_COLUMNS} FROM comms.call_requests WHERE ${filter} ORDER BY created_at DESC, id DESC`,
      params,
      page: query.page,
      pageSize: query.pageSize,
    });
  }

  /**
   * Queued requests of an organization that are due, oldest first, locked for this
   * transaction; rows another transaction holds are skipped. A campaign's request is only
   * due while its campaign runs.
   */
  async lockClaimable(db: Queryable, orgId: string, now: Date, limit: number): Promise<CallRequestRow[]> {
    const result = await db.query<CallRequestRow>(
      `SELECT ${REQUEST_COLUMNS.split(", ")
        .map((c) => `r.${c}`)
        .join(", ")}
       FROM comms.call_requests r LEFT JOIN comms.campaigns c ON c.id = r.campaign_id
       WHERE r.org_id = $1 AND r.status = 'queued' AND r.scheduled_for <= $2
         AND (r.window_closes_at IS NULL OR r.window_closes_at > $2)
         AND (r.campaign_id IS NULL OR c.status = 'running')
       ORDER BY r.scheduled_for, r.id LIMIT $3
       FOR UPDATE OF r SKIP LOCKED`,
      [orgId, now, limit],
    );
    return result.rows;
  }

  /** Queued requests that became due and were not announced yet, across organizations. */
  async lockDueUnannounced(db: Queryable, now: Date, limit: number): Promise<CallRequestRow[]> {
    const result = await db.query<CallRequestRow>(
      `SELECT ${REQUEST_COLUMNS} FROM comms.call_requests
       WHERE status = 'queued' AND scheduled_for <= $1 AND announced_at IS NULL
       ORDER BY scheduled_for, id LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [now, limit],
    );
    return result.rows;
  }

  /** Announced requests still queued when the opening they were announced in has closed. */
  async lockClosed(db: Queryable, now: Date, limit: number): Promise<CallRequestRow[]> {
    const result = await db.query<CallRequestRow>(
      `SELECT ${REQUEST_COLUMNS} FROM comms.call_requests
       WHERE status = 'queued' AND window_closes_at IS NOT NULL AND window_closes_at <= $1
       ORDER BY scheduled_for, id LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [now, limit],
    );
    return result.rows;
  }

  /** Dialing requests whose lease has run out, across organizations. */
  async lockExpiredLeases(db: Queryable, now: Date, limit: number): Promise<CallRequestRow[]> {
    const result = await db.query<CallRequestRow>(
      `SELECT ${REQUEST_COLUMNS} FROM comms.call_requests
       WHERE status = 'dialing' AND lease_expires_at <= $1
       ORDER BY lease_expires_at, id LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [now, limit],
    );
    return result.rows;
  }

  async announce(db: Queryable, id: string, now: Date, closesAt: Date): Promise<CallRequestRow> {
    return this.one(
      db,
      `UPDATE comms.call_requests SET announced_at = $2, window_closes_at = $3, updated_at = now() WHERE id = $1 ${RETURNING}`,
      [id, now, closesAt],
    );
  }

  /** Puts a queued request off until the next opening of its window; it is announced again then. */
  async reschedule(db: Queryable, id: string, scheduledFor: Date): Promise<CallRequestRow> {
    return this.one(
      db,
      `UPDATE comms.call_requests SET scheduled_for = $2, announced_at = NULL, window_closes_at = NULL, updated_at = now() WHERE id = $1 ${RETURNING}`,
      [id, scheduledFor],
    );
  }

  async markDialing(db: Queryable, id: string, now: Date, leaseUntil: Date): Promise<CallRequestRow> {
    return this.one(
      db,
      `UPDATE comms.call_requests SET status = 'dialing', attempts = attempts + 1, dialed_at = $2, lease_expires_at = $3, updated_at = now()
       WHERE id = $1 ${RETURNING}`,
      [id, now, leaseUntil],
    );
  }

  async renewLease(db: Queryable, orgId: string, id: string, leaseUntil: Date): Promise<CallRequestRow | undefined> {
    const result = await db.query<CallRequestRow>(
      `UPDATE comms.call_requests SET lease_expires_at = $3, updated_at = now() WHERE org_id = $1 AND id = $2 AND status = 'dialing' ${RETURNING}`,
      [orgId, id, leaseUntil],
    );
    return result.rows[0];
  }

  /** A request whose lease ran out goes back to the queue, due now; it is announced again. */
  async requeue(db: Queryable, id: string, now: Date): Promise<CallRequestRow> {
    return this.one(
      db,
      `UPDATE comms.call_requests SET status = 'queued', scheduled_for = $2, lease_expires_at = NULL, announced_at = NULL, window_closes_at = NULL, updated_at = now()
       WHERE id = $1 ${RETURNING}`,
      [id, now],
    );
  }

  /** Ends a request: completed or failed (with the call's result), blocked or cancelled. */
  async finish(
    db: Queryable,
    id: string,
    status: RequestStatusName,
    now: Date,
    result: { disposition?: string | null; sessionId?: string | null } = {},
  ): Promise<CallRequestRow> {
    return this.one(
      db,
      `UPDATE comms.call_requests SET status = $2, completed_at = $3, lease_expires_at = NULL,
         disposition = coalesce($4, disposition), session_id = coalesce($5, session_id), updated_at = now()
       WHERE id = $1 ${RETURNING}`,
      [id, status, now, result.disposition ?? null, result.sessionId ?? null],
    );
  }

  private async one(db: Queryable, sql: string, params: unknown[]): Promise<CallRequestRow> {
    const result = await db.query<CallRequestRow>(sql, params);
    const row = result.rows[0];
    if (!row) throw new Error("call request vanished inside its transaction");
    return row;
  }
}
