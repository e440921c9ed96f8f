import type { Database, Queryable, Statement } from "../db/database.js";

// The record of each idempotency key: one table for the whole database, because a key belongs
// to the organization across the API (the same key on two services' routes is one key, and the
// second request is refused as a different request). Every service shares the database, so the
// transaction of any service's write can mark the record it runs under.

export const IDEMPOTENCY_TABLE_NAME = "idempotency.requests";

/** Created with every service's platform tables (db/migrate.ts), idempotently. */
export const IDEMPOTENCY_TABLE = `
  CREATE SCHEMA IF NOT EXISTS idempotency;
  CREATE TABLE IF NOT EXISTS ${IDEMPOTENCY_TABLE_NAME} (
    org_id text NOT NULL,
    key text NOT NULL,
    fingerprint text NOT NULL,
    -- The attempt that holds the key: a new id each time a request claims or takes it over.
    attempt uuid NOT NULL,
    -- Until when the attempt may still be running; null once its answer is kept.
    lease_until timestamptz,
    -- Set in the same transaction as the attempt's change: a committed key never runs again.
    committed boolean NOT NULL DEFAULT false,
    -- 0 and the response message's bytes, or a Connect code and the error (errorAnswer); null while running.
    answer_code smallint,
    answer bytea,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (org_id, key)
  );
  CREATE INDEX IF NOT EXISTS requests_expires_at ON ${IDEMPOTENCY_TABLE_NAME} (expires_at);
`;

/** The key a running call holds. */
export interface Claim {
  orgId: string;
  key: string;
  attempt: string;
}

/** A key someone else holds or held. */
export interface ExistingRecord {
  fingerprint: string;
  committed: boolean;
  /** Its attempt's lease has not run out. */
  running: boolean;
  answerCode: number | null;
  answer: Uint8Array | null;
}

const PREPARED = { prepared: true } as const;

/**
 * Claims (org, key) for a new attempt, or takes it over when it is free again: expired, or
 * held by an attempt that ran out of lease without committing (it died, or is too slow: its
 * commit will then fail, see markStatement). One statement; undefined when claimed.
 */
export async function claimKey(
  db: Queryable,
  claim: Claim & { fingerprint: string; leaseSeconds: number; ttlSeconds: number },
): Promise<ExistingRecord | undefined> {
  for (let tries = 0; tries < 3; tries++) {
    const claimed = await db.query(
      `INSERT INTO ${IDEMPOTENCY_TABLE_NAME} AS r (org_id, key, fingerprint, attempt, lease_until, expires_at)
       VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5::float8), now() + make_interval(secs => $6::float8))
       ON CONFLICT (org_id, key) DO UPDATE
         SET fingerprint = excluded.fingerprint, attempt = excluded.attempt, lease_until = excluded.lease_until,
             committed = false, answer_code = NULL, answer = NULL, expires_at = excluded.expires_at
         WHERE (NOT r.committed AND r.lease_until <= now())
            OR (r.expires_at <= now() AND (r.lease_until IS NULL OR r.lease_until <= now()))
       RETURNING 1`,
      [claim.orgId, claim.key, claim.fingerprint, claim.attempt, claim.leaseSeconds, claim.ttlSeconds],
      PREPARED,
    );
    if (claimed.rowCount > 0) return undefined;
    const existing = await db.query<{
      fingerprint: string;
      committed: boolean;
      running: boolean;
      answer_code: number | null;
      answer: Uint8Array | null;
    }>(
      `SELECT fingerprint, committed, coalesce(lease_until > now(), false) AS running, answer_code, answer
       FROM ${IDEMPOTENCY_TABLE_NAME} WHERE org_id = $1 AND key = $2`,
      [claim.orgId, claim.key],
      PREPARED,
    );
    const row = existing.rows[0];
    // Freed between the two statements (its request failed): claim it again.
    if (!row) continue;
    return {
      fingerprint: row.fingerprint,
      committed: row.committed,
      running: row.running,
      answerCode: row.answer_code,
      answer: row.answer,
    };
  }
  // Claimed and freed again and again by others: as good as in flight.
  return { fingerprint: claim.fingerprint, committed: false, running: true, answerCode: null, answer: null };
}

/**
 * The statement a write's transaction runs at its commit when the write is made under a key:
 * it marks the key committed, and fails (division by zero, so the transaction rolls back) when
 * the attempt no longer holds the key. So a change is committed if and only if its key says
 * so, and a key taken over after its lease ran out can never see the first attempt commit too.
 */
export function markStatement(claim: Claim): Statement {
  return {
    sql: `WITH marked AS (
            UPDATE ${IDEMPOTENCY_TABLE_NAME} SET committed = true WHERE org_id = $1 AND key = $2 AND attempt = $3 RETURNING 1
          )
          SELECT 1 / count(*)::int FROM marked`,
    params: [claim.orgId, claim.key, claim.attempt],
    options: PREPARED,
  };
}

/** The SQLSTATE of a mark whose attempt lost its key. */
export const MARK_LOST = "22012";

/** Keeps the answer of the attempt (and marks it committed: it ran); false when it lost its key. */
export async function keepAnswer(db: Queryable, claim: Claim, code: number, answer: Uint8Array): Promise<boolean> {
  const result = await db.query(
    `UPDATE ${IDEMPOTENCY_TABLE_NAME} SET committed = true, lease_until = NULL, answer_code = $4, answer = $5
     WHERE org_id = $1 AND key = $2 AND attempt = $3`,
    [claim.orgId, claim.key, claim.attempt, code, answer],
    PREPARED,
  );
  return result.rowCount > 0;
}

/** Frees the key of an attempt that changed nothing; false when it had committed a change. */
export async function freeKey(db: Queryable, claim: Claim): Promise<boolean> {
  const result = await db.query(
    `DELETE FROM ${IDEMPOTENCY_TABLE_NAME} WHERE org_id = $1 AND key = $2 AND attempt = $3 AND NOT committed`,
    [claim.orgId, claim.key, claim.attempt],
  );
  return result.rowCount > 0;
}

/** Rows deleted per statement, so that no statement holds the table for long. */
const PRUNE_BATCH = 5_000;

/** Deletes the expired keys (none that a running attempt holds); returns how many. */
export async function pruneExpiredKeys(db: Database, batch = PRUNE_BATCH): Promise<number> {
  let deleted = 0;
  for (;;) {
    // SKIP LOCKED: the services and their replicas all prune this one table; they share the work.
    const result = await db.query(
      `DELETE FROM ${IDEMPOTENCY_TABLE_NAME} WHERE ctid = ANY(ARRAY(
         SELECT ctid FROM ${IDEMPOTENCY_TABLE_NAME}
         WHERE expires_at <= now() AND (lease_until IS NULL OR lease_until <= now())
         LIMIT $1 FOR UPDATE SKIP LOCKED))`,
      [batch],
    );
    deleted += result.rowCount;
    if (result.rowCount < batch) return deleted;
  }
}
