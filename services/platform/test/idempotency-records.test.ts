import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  claimKey,
  createLogger,
  freeKey,
  IDEMPOTENCY_TABLE_NAME,
  keepAnswer,
  migrate,
  newId,
  openDatabase,
  parseIdempotencyKey,
  pgErrorCode,
  readInfraConfig,
  requestFingerprint,
  type Database,
} from "../src/index.js";
import { canonicalJson } from "../src/idempotency/keys.js";
import { MARK_LOST, markStatement, pruneExpiredKeys } from "../src/idempotency/records.js";
import { testEnv } from "../src/testing/index.js";

// The record of idempotency keys against the real database (PGlite, or PostgreSQL with
// DATABASE_URL): who holds a key, when a retry may take it over, and why a change can never be
// committed twice under one key.

describe("idempotency keys", () => {
  let db: Database;
  const schema = `idem_${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    db = await openDatabase(readInfraConfig(testEnv()), {
      name: "idempotency-test",
      poolSize: 3,
      logger: createLogger("silent"),
      inMemory: true,
    });
    await migrate(db, schema, []);
    await db.exec(`CREATE TABLE ${schema}.things (id uuid PRIMARY KEY)`);
  });
  afterAll(async () => {
    await db.exec(`DROP SCHEMA ${schema} CASCADE`);
    await db.close();
  });

  const claimOf = (orgId: string, key: string) => ({ orgId, key, attempt: newId() });
  const things = async () =>
    Number((await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.things`)).rows[0]?.n);

  /** A write under a claim, as ServiceContext.write makes it: the change and the mark in one transaction. */
  const writeUnder = (claim: { orgId: string; key: string; attempt: string }) =>
    db.transaction(async (tx) => {
      await tx.query(`INSERT INTO ${schema}.things (id) VALUES ($1)`, [newId()]);
      tx.atCommit(markStatement(claim));
    });

  it("lets a retry take over an attempt that ran out of lease, and that attempt's commit then fails", async () => {
    const orgId = newId();
    const first = claimOf(orgId, "k1");
    expect(await claimKey(db, { ...first, fingerprint: "f", leaseSeconds: 0, ttlSeconds: 3600 })).toBeUndefined();
    const retry = claimOf(orgId, "k1");
    expect(await claimKey(db, { ...retry, fingerprint: "f", leaseSeconds: 60, ttlSeconds: 3600 })).toBeUndefined();
    const before = await things();
    const lost = await writeUnder(first).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(pgErrorCode(lost)).toBe(MARK_LOST);
    expect(await things()).toBe(before);
    await writeUnder(retry);
    expect(await things()).toBe(before + 1);
  });

  it("never hands a committed key to another attempt, even once its lease ran out", async () => {
    const orgId = newId();
    const first = claimOf(orgId, "k2");
    expect(await claimKey(db, { ...first, fingerprint: "f", leaseSeconds: 0, ttlSeconds: 3600 })).toBeUndefined();
    await writeUnder(first);
    // Its process died before keeping the answer: a retry hears that, and runs nothing.
    const existing = await claimKey(db, {
      ...claimOf(orgId, "k2"),
      fingerprint: "f",
      leaseSeconds: 60,
      ttlSeconds: 3600,
    });
    expect(existing).toMatchObject({ committed: true, running: false, answerCode: null });
    expect(await freeKey(db, first)).toBe(false);
  });

  it("replays a kept answer to the same request and tells another request apart", async () => {
    const orgId = newId();
    const first = claimOf(orgId, "k3");
    await claimKey(db, { ...first, fingerprint: "f", leaseSeconds: 60, ttlSeconds: 3600 });
    const running = await claimKey(db, {
      ...claimOf(orgId, "k3"),
      fingerprint: "f",
      leaseSeconds: 60,
      ttlSeconds: 3600,
    });
    expect(running).toMatchObject({ running: true, answerCode: null });
    expect(await keepAnswer(db, first, 0, Buffer.from([1, 2, 3]))).toBe(true);
    const kept = await claimKey(db, {
      ...claimOf(orgId, "k3"),
      fingerprint: "other",
      leaseSeconds: 60,
      ttlSeconds: 3600,
    });
    expect(kept).toMatchObject({ fingerprint: "f", committed: true, answerCode: 0 });
    expect(Buffer.from(kept?.answer ?? [])).toEqual(Buffer.from([1, 2, 3]));
  });

  it("frees the key of an attempt that changed nothing", async () => {
    const orgId = newId();
    const first = claimOf(orgId, "k4");
    await claimKey(db, { ...first, fingerprint: "f", leaseSeconds: 60, ttlSeconds: 3600 });
    expect(await freeKey(db, first)).toBe(true);
    expect(
      await claimKey(db, { ...claimOf(orgId, "k4"), fingerprint: "g", leaseSeconds: 60, ttlSeconds: 3600 }),
    ).toBeUndefined();
  });

  it("prunes expired keys but none a running attempt holds, and takes an expired key over as new", async () => {
    const orgId = newId();
    const done = claimOf(orgId, "expired");
    await claimKey(db, { ...done, fingerprint: "f", leaseSeconds: 60, ttlSeconds: 0 });
    await keepAnswer(db, done, 0, Buffer.alloc(0));
    await claimKey(db, { ...claimOf(orgId, "running"), fingerprint: "f", leaseSeconds: 60, ttlSeconds: 0 });
    await pruneExpiredKeys(db);
    const left = await db.query<{ key: string }>(`SELECT key FROM ${IDEMPOTENCY_TABLE_NAME} WHERE org_id = $1`, [
      orgId,
    ]);
    expect(left.rows.map((row) => row.key)).toEqual(["running"]);
    const other = claimOf(orgId, "again");
    await claimKey(db, { ...other, fingerprint: "f", leaseSeconds: 60, ttlSeconds: 0 });
    await keepAnswer(db, other, 0, Buffer.alloc(0));
    expect(
      await claimKey(db, {
        ...claimOf(orgId, "again"),
        fingerprint: "new request",
        leaseSeconds: 60,
        ttlSeconds: 3600,
      }),
    ).toBeUndefined();
  });
});

describe("Idempotency-Key values and fingerprints", () => {
  it("accepts 1..255 visible ASCII characters, bare or quoted", () => {
    expect(parseIdempotencyKey("abc")).toBe("abc");
    expect(parseIdempotencyKey('"abc"')).toBe("abc");
    expect(parseIdempotencyKey("x".repeat(255))).toBe("x".repeat(255));
    expect(parseIdempotencyKey(`"${"x".repeat(255)}"`)).toBe("x".repeat(255));
    expect(parseIdempotencyKey('a"b')).toBe('a"b');
    for (const bad of ["", '""', " ", "a b", "a\tb", "x".repeat(256), "caf\u00e9", "a\u0000b", "a\u007fb"])
      expect(parseIdempotencyKey(bad)).toBeUndefined();
  });

  it("compares JSON bodies as values and everything else exactly", () => {
    expect(canonicalJson(JSON.parse('{"b": [1, {"y": 2, "x": 1}], "a": null}'))).toBe(
      '{"a":null,"b":[1,{"x":1,"y":2}]}',
    );
    const json = (body: unknown) => requestFingerprint("POST", "/api/contacts", { json: body });
    expect(json({ a: 1, b: 2 })).toBe(json({ b: 2, a: 1 }));
    expect(json({ a: 1 })).not.toBe(json({ a: "1" }));
    expect(requestFingerprint("post", "/api/contacts", { json: {} })).toBe(json({}));
    expect(requestFingerprint("PUT", "/api/contacts", { json: {} })).not.toBe(json({}));
    expect(requestFingerprint("POST", "/api/contacts?x=1", { json: {} })).not.toBe(json({}));
    expect(requestFingerprint("POST", "/api/contacts", undefined)).not.toBe(json({}));
  });
});
