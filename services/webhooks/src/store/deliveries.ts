import { type Queryable, selectPage } from "@voiceops/platform";
import { type AttemptRow, DELIVERY_COLUMNS, type DeliveryRow } from "./rows.js";

/** An event as the webhooks service records it: its public type and the body every delivery posts. */
export interface RecordedEvent {
  id: string;
  orgId: string;
  type: string;
  body: string;
  at: Date;
  /** The trace of the work that consumed the event (empty with tracing off): its deliveries continue it. */
  traceparent: string;
}

interface DeliveryListQuery {
  page: number;
  pageSize: number;
  status: string | undefined;
  eventType: string | undefined;
}

/** A delivery a worker holds, with what its attempt needs. */
export interface ClaimedDelivery {
  id: string;
  endpoint_id: string;
  event_id: string;
  attempts: number;
  leased_until: Date;
  body: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: Date | null;
  traceparent: string | null;
}

/** The outcome of one attempt, to be written with others in one transaction. */
export interface AttemptResult {
  deliveryId: string;
  endpointId: string;
  leasedUntil: Date;
  at: Date;
  status: "succeeded" | "failed" | "exhausted";
  nextAttemptAt: Date | null;
  responseStatus: number | null;
  responseBody: string | null;
  error: string | null;
  durationMs: number;
  /** The receiver answered 410: the endpoint is disabled. */
  gone: boolean;
}

const FAILING_DISABLE_DAYS = 5;
/** Rows deleted per statement when pruning, so that no statement holds the tables for long. */
const PRUNE_BATCH = 2_000;

// Delivery ids are derived from the endpoint and event (md5 as a uuid), so a second recording of
// one event to one endpoint is the same row: no delivery is created twice.
const DELIVERY_ID = "md5(t.endpoint_id::text || ':' || t.id::text)::uuid";

export class DeliveryStore {
  /**
   * Records events and one pending delivery per enabled endpoint subscribed to each, in one
   * statement; events nobody subscribed to are not kept. Returns how many deliveries were made.
   */
  async record(db: Queryable, events: RecordedEvent[], now: Date, onlyEndpoint?: string): Promise<number> {
    if (events.length === 0) return 0;
    const params: unknown[] = [
      events.map((e) => e.id),
      events.map((e) => e.orgId),
      events.map((e) => e.type),
      events.map((e) => e.body),
      events.map((e) => e.at.toISOString()),
      now.toISOString(),
      events.map((e) => e.traceparent || null),
    ];
    // An endpoint gets the events that happened since it was created (a few seconds of clock
    // difference between services allowed), not a backlog a new consumer replays.
    let target =
      "ep.enabled AND ep.event_types && ARRAY['*', i.type] AND i.created_at >= ep.created_at - interval '5 seconds'";
    if (onlyEndpoint) {
      params.push(onlyEndpoint);
      target = `ep.id = $${params.length}`;
    }
    const result = await db.query(
      `WITH input AS (
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::timestamptz[], $7::text[])
           AS i(id, org_id, type, body, created_at, traceparent)
       ), targets AS (
         SELECT i.*, ep.id AS endpoint_id FROM input i JOIN webhooks.endpoints ep ON ep.org_id = i.org_id AND ${target}
       ), events AS (
         INSERT INTO webhooks.events (id, org_id, type, body, created_at, traceparent)
         SELECT DISTINCT id, org_id, type, body, created_at, traceparent FROM targets ON CONFLICT (id) DO NOTHING
       )
       INSERT INTO webhooks.deliveries (id, org_id, endpoint_id, event_id, event_type, status, next_attempt_at, created_at)
       SELECT ${DELIVERY_ID}, t.org_id, t.endpoint_id, t.id, t.type, 'pending', $6::timestamptz, $6::timestamptz FROM targets t
       ON CONFLICT DO NOTHING`,
      params,
    );
    return result.rowCount;
  }

  /** The delivery of an event to an endpoint. */
  async idOf(db: Queryable, endpointId: string, eventId: string): Promise<string> {
    const result = await db.query<{ id: string }>(
      "SELECT id FROM webhooks.deliveries WHERE endpoint_id = $1 AND event_id = $2",
      [endpointId, eventId],
    );
    return result.rows[0]?.id ?? "";
  }

  async list(
    db: Queryable,
    orgId: string,
    endpointId: string,
    query: DeliveryListQuery,
  ): Promise<{ rows: DeliveryRow[]; total: number }> {
    const params: unknown[] = [orgId, endpointId];
    const where = ["org_id = $1", "endpoint_id = $2"];
    if (query.status !== undefined) {
      params.push(query.status);
      where.push(`status = $${params.length}`);
    }
    if (query.eventType !== undefined) {
      params.push(query.eventType);
      where.push(`event_type = $${params.length}`);
    }
    const filter = where.join(" AND ");
    return selectPage<DeliveryRow>(db, {
      total: `SELECT count(*)::int AS total FROM webhooks.deliveries WHERE ${filter}`,
      rows: `SELECT ${DELIVERY_COLUMNS} FROM webhooks.deliveries WHERE ${filter} ORDER BY created_at DESC, id DESC`,
      params,
      page: query.page,
      pageSize: query.pageSize,
    });
  }

  async get(
    db: Queryable,
    orgId: string,
    endpointId: string,
    id: string,
  ): Promise<{ row: DeliveryRow; attempts: AttemptRow[] } | undefined> {
    const result = await db.query<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhooks.deliveries WHERE org_id = $1 AND endpoint_id = $2 AND id = $3`,
      [orgId, endpointId, id],
    );
    const row = result.rows[0];
    if (!row) return undefined;
    const attempts = await db.query<AttemptRow>(
      "SELECT at, response_status, duration_ms, error FROM webhooks.attempts WHERE delivery_id = $1 ORDER BY at, duration_ms",
      [id],
    );
    return { row, attempts: attempts.rows };
  }

  /** Makes a delivery due now, whatever its status. */
  async resend(db: Queryable, orgId: string, endpointId: string, id: string, now: Date): Promise<boolean> {
    const result = await db.query(
      "UPDATE webhooks.deliveries SET next_attempt_at = $4, leased_until = NULL WHERE org_id = $1 AND endpoint_id = $2 AND id = $3",
      [orgId, endpointId, id, now],
    );
    return result.rowCount > 0;
  }

  /** Makes every failed or exhausted delivery of an endpoint created since then due now. */
  async recover(db: Queryable, orgId: string, endpointId: string, since: Date, now: Date): Promise<number> {
    const result = await db.query(
      `UPDATE webhooks.deliveries SET next_attempt_at = $4, leased_until = NULL
       WHERE org_id = $1 AND endpoint_id = $2 AND status IN ('failed', 'exhausted') AND created_at >= $3`,
      [orgId, endpointId, since, now],
    );
    return result.rowCount;
  }

  /**
   * Leases due deliveries of enabled endpoints: at most `limit`, at most `perEndpoint` of one
   * endpoint minus what this worker already sends to it, none of an endpoint in `full`. Rows
   * another replica is claiming are skipped (SKIP LOCKED); a lease that ran out is taken over.
   */
  async claim(
    db: Queryable,
    options: {
      now: Date;
      leaseUntil: Date;
      limit: number;
      perEndpoint: number;
      busy: Map<string, number>;
      full: string[];
    },
  ): Promise<ClaimedDelivery[]> {
    const busyIds = [...options.busy.keys()];
    const result = await db.query<ClaimedDelivery>(
      `WITH candidates AS (
         SELECT d.id, d.endpoint_id, d.next_attempt_at FROM webhooks.deliveries d JOIN webhooks.endpoints ep ON ep.id = d.endpoint_id
         WHERE d.next_attempt_at <= $1 AND (d.leased_until IS NULL OR d.leased_until < $1) AND ep.enabled AND NOT (d.endpoint_id = ANY($2::uuid[]))
         ORDER BY d.next_attempt_at LIMIT $3 * 4 FOR UPDATE OF d SKIP LOCKED
       ), picked AS (
         SELECT r.id FROM (
           SELECT c.id, c.endpoint_id, c.next_attempt_at, row_number() OVER (PARTITION BY c.endpoint_id ORDER BY c.next_attempt_at, c.id) AS n FROM candidates c
         ) r LEFT JOIN unnest($4::uuid[], $5::int[]) AS busy(endpoint_id, used) ON busy.endpoint_id = r.endpoint_id
         WHERE r.n <= $6 - COALESCE(busy.used, 0) ORDER BY r.next_attempt_at LIMIT $3
       )
       UPDATE webhooks.deliveries d SET leased_until = $7
       FROM picked p, webhooks.events e, webhooks.endpoints ep
       WHERE d.id = p.id AND e.id = d.event_id AND ep.id = d.endpoint_id
       RETURNING d.id, d.endpoint_id, d.event_id, d.attempts, d.leased_until, e.body, e.traceparent, ep.url, ep.secret, ep.previous_secret, ep.previous_secret_until`,
      [
        options.now,
        options.full,
        options.limit,
        busyIds,
        busyIds.map((id) => options.busy.get(id) ?? 0),
        options.perEndpoint,
        options.leaseUntil,
      ],
    );
    return result.rows;
  }

  /**
   * Writes the outcomes of attempts, their log lines and their effect on the endpoints in one
   * transaction: a 410 disables its endpoint, a success ends its failure streak, and a streak of
   * five days disables it.
   */
  async finish(db: Queryable, results: AttemptResult[], now: Date): Promise<void> {
    if (results.length === 0) return;
    await db.query(
      `UPDATE webhooks.deliveries d SET status = r.status, attempts = d.attempts + 1, next_attempt_at = r.next_at, leased_until = NULL,
         last_attempt_at = r.at, last_response_status = r.code, last_response_body = r.body, last_error = r.error, last_duration_ms = r.ms
       FROM unnest($1::uuid[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::int[], $6::text[], $7::text[], $8::int[], $9::timestamptz[])
         AS r(id, status, next_at, at, code, body, error, ms, leased_until)
       WHERE d.id = r.id AND d.leased_until = r.leased_until`,
      [
        results.map((r) => r.deliveryId),
        results.map((r) => r.status),
        results.map((r) => r.nextAttemptAt?.toISOString() ?? null),
        results.map((r) => r.at.toISOString()),
        results.map((r) => r.responseStatus),
        results.map((r) => r.responseBody),
        results.map((r) => r.error),
        results.map((r) => r.durationMs),
        results.map((r) => r.leasedUntil.toISOString()),
      ],
    );
    await db.query(
      `INSERT INTO webhooks.attempts (delivery_id, at, response_status, duration_ms, error)
       SELECT a.id, a.at, a.code, a.ms, a.error FROM unnest($1::uuid[], $2::timestamptz[], $3::int[], $4::int[], $5::text[]) AS a(id, at, code, ms, error)
       WHERE EXISTS (SELECT 1 FROM webhooks.deliveries d WHERE d.id = a.id)`,
      [
        results.map((r) => r.deliveryId),
        results.map((r) => r.at.toISOString()),
        results.map((r) => r.responseStatus),
        results.map((r) => r.durationMs),
        results.map((r) => r.error),
      ],
    );
    const gone = unique(results.filter((r) => r.gone).map((r) => r.endpointId));
    const succeeded = unique(results.filter((r) => r.status === "succeeded").map((r) => r.endpointId));
    const failed = unique(results.filter((r) => r.status !== "succeeded").map((r) => r.endpointId)).filter(
      (id) => !succeeded.includes(id),
    );
    if (gone.length > 0) {
      await db.query(
        "UPDATE webhooks.endpoints SET enabled = false, disabled_reason = 'gone', updated_at = $2 WHERE id = ANY($1::uuid[]) AND enabled",
        [gone, now],
      );
    }
    if (succeeded.length > 0) {
      await db.query(
        "UPDATE webhooks.endpoints SET failing_since = NULL WHERE id = ANY($1::uuid[]) AND failing_since IS NOT NULL",
        [succeeded],
      );
    }
    if (failed.length > 0) {
      await db.query(
        `UPDATE webhooks.endpoints SET failing_since = COALESCE(failing_since, $2),
           enabled = CASE WHEN failing_since <= $2::timestamptz - interval '${FAILING_DISABLE_DAYS} days' THEN false ELSE enabled END,
           disabled_reason = CASE WHEN enabled AND failing_since <= $2::timestamptz - interval '${FAILING_DISABLE_DAYS} days' THEN 'failing' ELSE disabled_reason END,
           updated_at = CASE WHEN enabled AND failing_since <= $2::timestamptz - interval '${FAILING_DISABLE_DAYS} days' THEN $2 ELSE updated_at END
         WHERE id = ANY($1::uuid[])`,
        [failed, now],
      );
    }
  }

  /**
   * Deletes what was recorded before `before`: deliveries with no attempt due (their attempt log
   * goes with them), then the events no delivery refers to any more. A delivery made due again
   * (resent) stays until it is done. Rows another replica is pruning are skipped (SKIP LOCKED), so
   * replicas never wait on one another. Returns the deliveries and events deleted.
   */
  async prune(db: Queryable, before: Date, batch = PRUNE_BATCH): Promise<{ deliveries: number; events: number }> {
    const deleted = { deliveries: 0, events: 0 };
    for (;;) {
      const result = await db.query(
        `DELETE FROM webhooks.deliveries WHERE id = ANY(ARRAY(
           SELECT id FROM webhooks.deliveries WHERE created_at < $1 AND next_attempt_at IS NULL LIMIT $2 FOR UPDATE SKIP LOCKED))`,
        [before, batch],
      );
      deleted.deliveries += result.rowCount;
      if (result.rowCount < batch) break;
    }
    for (;;) {
      const result = await db.query(
        `DELETE FROM webhooks.events WHERE id = ANY(ARRAY(
           SELECT e.id FROM webhooks.events e WHERE e.created_at < $1
             AND NOT EXISTS (SELECT 1 FROM webhooks.deliveries d WHERE d.event_id = e.id) LIMIT $2 FOR UPDATE OF e SKIP LOCKED))`,
        [before, batch],
      );
      deleted.events += result.rowCount;
      if (result.rowCount < batch) break;
    }
    return deleted;
  }
}

function unique(ids: string[]): string[] {
  return [...new Set(ids)];
}
