import type { Database, Queryable, Statement } from "../db/database.js";
import { type CallFailed, eachSettled, Grouped } from "../db/grouped.js";

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
      ours: boolean;
    }>(
      `SELECT fingerprint, committed, coalesce(lease_until > now(), false) AS running, answer_code, answer,
              attempt = $3 AS ours
       FROM ${IDEMPOTENCY_TABLE_NAME} WHERE org_id = $1 AND key = $2`,
      [claim.orgId, claim.key, claim.attempt],
      PREPARED,
    );
    const row = existing.rows[0];
    // Freed between the two statements (its request failed): claim it again.
    if (!row) continue;
    // Claimed by this very attempt already (a grouped claim whose answer was lost with its connection).
    if (row.ours && !row.committed && row.answer_code === null) return undefined;
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

/** A claim of claimKey's. */
export type KeyClaim = Claim & { fingerprint: string; leaseSeconds: number; ttlSeconds: number };

/** An answer of keepAnswer's. */
export interface KeptAnswer {
  claim: Claim;
  code: number;
  answer: Uint8Array;
}

const sameKey = (a: Claim, b: Claim) => a.orgId === b.orgId && a.key === b.key;
const byKey = (a: { claim: Claim }, b: { claim: Claim }) =>
  a.claim.orgId === b.claim.orgId ? (a.claim.key < b.claim.key ? -1 : 1) : a.claim.orgId < b.claim.orgId ? -1 : 1;

/**
 * claimKey for several claims of distinct keys in one statement (rows taken in key order, so
 * two such statements cannot deadlock); answers each claim's result by position. A claim the
 * statement did not take reads the record as claimKey does.
 */
export async function claimKeys(
  db: Queryable,
  claims: KeyClaim[],
): Promise<(ExistingRecord | undefined | CallFailed)[]> {
  const sorted = claims.map((claim) => ({ claim })).sort(byKey);
  const claimed = await db.query<{ attempt: string }>(
    `INSERT INTO ${IDEMPOTENCY_TABLE_NAME} AS r (org_id, key, fingerprint, attempt, lease_until, expires_at)
     SELECT org_id, key, fingerprint, attempt, now() + make_interval(secs => lease), now() + make_interval(secs => ttl)
     FROM unnest($1::text[], $2::text[], $3::text[], $4::uuid[], $5::float8[], $6::float8[])
       AS v(org_id, key, fingerprint, attempt, lease, ttl)
     ON CONFLICT (org_id, key) DO UPDATE
       SET fingerprint = excluded.fingerprint, attempt = excluded.attempt, lease_until = excluded.lease_until,
           committed = false, answer_code = NULL, answer = NULL, expires_at = excluded.expires_at
       WHERE (NOT r.committed AND r.lease_until <= now())
          OR (r.expires_at <= now() AND (r.lease_until IS NULL OR r.lease_until <= now()))
     RETURNING r.attempt::text AS attempt`,
    [
      sorted.map(({ claim }) => claim.orgId),
      sorted.map(({ claim }) => claim.key),
      sorted.map(({ claim }) => claim.fingerprint),
      sorted.map(({ claim }) => claim.attempt),
      sorted.map(({ claim }) => claim.leaseSeconds),
      sorted.map(({ claim }) => claim.ttlSeconds),
    ],
    PREPARED,
  );
  const taken = new Set(claimed.rows.map((row) => row.attempt.toLowerCase()));
  // Not taken: held by another attempt (or freed since), which claimKey reads (or takes).
  return eachSettled(claims, async (claim) =>
    taken.has(claim.attempt.toLowerCase()) ? undefined : claimKey(db, claim),
  );
}

/** keepAnswer for several attempts in one statement, in key order; answers each one's result by position. */
export async function keepAnswers(db: Queryable, kept: KeptAnswer[]): Promise<boolean[]> {
  const sorted = [...kept].sort(byKey);
  const result = await db.query<{ attempt: string }>(
    `UPDATE ${IDEMPOTENCY_TABLE_NAME} AS r SET committed = true, lease_until = NULL, answer_code = v.code, answer = decode(v.answer, 'hex')
     FROM (SELECT * FROM unnest($1::text[], $2::text[], $3::uuid[], $4::smallint[], $5::text[])
             AS u(org_id, key, attempt, code, answer) ORDER BY org_id, key) AS v
     WHERE r.org_id = v.org_id AND r.key = v.key AND r.attempt = v.attempt
     RETURNING r.attempt::text AS attempt`,
    [
      sorted.map(({ claim }) => claim.orgId),
      sorted.map(({ claim }) => claim.key),
      sorted.map(({ claim }) => claim.attempt),
      sorted.map(({ code }) => code),
      sorted.map(({ answer }) => Buffer.from(answer.buffer, answer.byteOffset, answer.byteLength).toString("hex")),
    ],
    PREPARED,
  );
  const done = new Set(result.rows.map((row) => row.attempt.toLowerCase()));
  return kept.map(({ claim }) => done.has(claim.attempt.toLowerCase()));
}

/**
 * The claims and kept answers of a process's concurrent calls, grouped: the calls made while a
 * statement is in flight go together in the next one (Grouped), so under load a keyed write
 * costs a share of two round trips instead of two. Two claims of one key never share a
 * statement (an upsert may not touch a row twice): the later one runs on its own, after. A
 * group whose statement fails runs each call on its own, so one bad call fails alone.
 */
export class KeyRecords {
  private readonly claims: Grouped<KeyClaim, ExistingRecord | undefined>;
  private readonly answers: Grouped<KeptAnswer, boolean>;

  constructor(db: Queryable) {
    const claimOne = (claim: KeyClaim) => claimKey(db, claim);
    const keepOne = ({ claim, code, answer }: KeptAnswer) => keepAnswer(db, claim, code, answer);
    this.claims = new Grouped(async (claims) => {
      if (claims.length === 1) return eachSettled(claims, claimOne);
      const distinct = claims.filter((claim, i) => claims.findIndex((other) => sameKey(claim, other)) === i);
      const firsts = await claimKeys(db, distinct).catch(() => undefined);
      const repeats = await eachSettled(
        claims.filter((claim) => firsts === undefined || !distinct.includes(claim)),
        claimOne,
      );
      return claims.map((claim) => {
        const at = firsts === undefined ? -1 : distinct.indexOf(claim);
        return at >= 0 ? (firsts?.[at] as ExistingRecord | undefined | CallFailed) : repeats.shift();
      });
    });
    this.answers = new Grouped(async (kept) => {
      if (kept.length === 1) return eachSettled(kept, keepOne);
      return (await keepAnswers(db, kept).catch(() => undefined)) ?? eachSettled(kept, keepOne);
    });
  }

  /** claimKey, grouped with the claims made at the same time. */
  claim(claim: KeyClaim): Promise<ExistingRecord | undefined> {
    return this.claims.run(claim);
  }

  /** keepAnswer, grouped with the answers kept at the same time. */
  keep(claim: Claim, code: number, answer: Uint8Array): Promise<boolean> {
    return this.answers.run({ claim, code, answer });
  }
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
