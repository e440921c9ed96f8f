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
import {
  claimKeys,
  KeyRecords,
  keepAnswers,
  MARK_LOST,
  markStatement,
  pruneExpiredKeys,
} from "../src/idempotency/records.js";
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

  it("claims and keeps several keys in one statement each as claimKey and keepAnswer would one by one", async () => {
    const orgId = newId();
    const held = claimOf(orgId, "held");
    const kept = claimOf(orgId, "kept");
    await claimKey(db, { ...held, fingerprint: "f", leaseSeconds: 60, ttlSeconds: 3600 });
    await claimKey(db, { ...kept, fingerprint: "f", leaseSeconds: 60, ttlSeconds: 3600 });
    expect(await keepAnswer(db, kept, 0, Buffer.from([7]))).toBe(true);
    const fresh = [claimOf(orgId, "new-b"), claimOf(newId(), "new-a")];
    const results = await claimKeys(
      db,
      [fresh[0], claimOf(orgId, "held"), fresh[1], claimOf(orgId, "kept")].map((claim) => ({
        ...(claim as { orgId: string; key: string; attempt: string }),
        fingerprint: "f",
        leaseSeconds: 60,
        ttlSeconds: 3600,
      })),
    );
    expect(results[0]).toBeUndefined();
    expect(results[1]).toMatchObject({ running: true, answerCode: null });
    expect(results[2]).toBeUndefined();
    expect(results[3]).toMatchObject({ committed: true, answerCode: 0 });
    const [b, a] = fresh as [typeof held, typeof held];
    expect(
      await keepAnswers(db, [
        { claim: b, code: 0, answer: Buffer.from([1, 2]) },
        { claim: claimOf(orgId, "held"), code: 0, answer: Buffer.alloc(0) },
        { claim: a, code: 5, answer: Buffer.from("gone") },
      ]),
    ).toEqual([true, false, true]);
    const again = await claimKeys(db, [
      { ...claimOf(orgId, "new-b"), fingerprint: "f", leaseSeconds: 60, ttlSeconds: 3600 },
      { ...claimOf(a.orgId, "new-a"), fingerprint: "f", leaseSeconds: 60, ttlSeconds: 3600 },
    ]);
    expect(again[0]).toMatchObject({ committed: true, answerCode: 0 });
    expect(Buffer.from((again[0] as { answer: Uint8Array }).answer)).toEqual(Buffer.from([1, 2]));
    expect(again[1]).toMatchObject({ committed: true, answerCode: 5 });
    expect(Buffer.from((again[1] as { answer: Uint8Array }).answer).toString()).toBe("gone");
  });

  it("a claim an attempt already made is its own: claiming again answers claimed, not running", async () => {
    const first = claimOf(newId(), "again");
    const claim = { ...first, fingerprint: "f", leaseSeconds: 60, ttlSeconds: 3600 };
    expect(
      await claimKeys(db, [
        claim,
        { ...claimOf(first.orgId, "other"), fingerprint: "f", leaseSeconds: 60, ttlSeconds: 3600 },
      ]),
    ).toEqual([undefined, undefined]);
    expect(await claimKey(db, claim)).toBeUndefined();
    expect(
      await claimKey(db, { ...claimOf(first.orgId, "again"), fingerprint: "f", leaseSeconds: 60, ttlSeconds: 3600 }),
    ).toMatchObject({ running: true });
  });

  it("grants a key once to many claims made at the same time, and keeps each answer", async () => {
    const records = new KeyRecords(db);
    const orgId = newId();
    const same = Array.from({ length: 20 }, () => claimOf(orgId, "same"));
    const distinct = Array.from({ length: 20 }, (_, i) => claimOf(orgId, `distinct-${i}`));
    const results = await Promise.all(
      [...same, ...distinct].map((claim) =>
        records.claim({ ...claim, fingerprint: "f", leaseSeconds: 60, ttlSeconds: 3600 }),
      ),
    );
    expect(results.slice(0, 20).filter((result) => result === undefined)).toHaveLength(1);
    expect(results.slice(0, 20).filter((result) => result?.running)).toHaveLength(19);
    expect(results.slice(20).every((result) => result === undefined)).toBe(true);
    const winner = same[results.indexOf(undefined)] as (typeof same)[number];
    const keeps = await Promise.all(
      [winner, ...distinct, same.find((claim) => claim !== winner) as (typeof same)[number]].map((claim, i) =>
        records.keep(claim, 0, Buffer.from([i])),
      ),
    );
    expect(keeps).toEqual([...Array(21).fill(true), false]);
    const stored = await db.query<{ key: string; answer: Uint8Array }>(
      `SELECT key, answer FROM ${IDEMPOTENCY_TABLE_NAME} WHERE org_id = $1 ORDER BY key`,
      [orgId],
    );
    const answerOf = (key: string) => Buffer.from(stored.rows.find((row) => row.key === key)?.answer ?? []);
    expect(answerOf("distinct-3")).toEqual(Buffer.from([4]));
    expect(answerOf("same")).toEqual(Buffer.from([0]));
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
