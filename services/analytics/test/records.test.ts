import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@voiceops/platform";
import { serviceDatabase } from "@voiceops/platform/testing";
import { analyticsService } from "../src/index.js";
import { APPLY_RECORDS, applyRecord, applyRecords, readCounters, type RecordChange } from "../src/store/records.js";

// A record's state moves the counters with it, against the run's real database (PostgreSQL, or
// PGlite in memory); each case in an organization of its own.
describe("applyRecord", () => {
  let db: Database;
  const day = (n: number) => new Date(Date.UTC(2026, 10, n));

  beforeAll(async () => {
    db = await serviceDatabase(analyticsService, "records-test");
  });
  afterAll(async () => {
    await db?.close();
  });

  const apply = (orgId: string, next: Parameters<typeof applyRecord>[4], id = "c1") =>
    db.transaction((tx) => applyRecord(tx, orgId, "contact", id, next));
  const counters = (orgId: string) =>
    readCounters(db, orgId, ["contacts", "customers"]).then((values) => Object.fromEntries(values));

  it("adds a new record's counters, moves them on a change, and answers the previous state", async () => {
    const org = randomUUID();
    expect(await apply(org, { counters: ["contacts", "customers"], attrs: { a: 1 }, version: day(1) })).toBeNull();
    expect(await counters(org)).toEqual({ contacts: 1, customers: 1 });
    expect(await apply(org, { counters: ["contacts"], version: day(2) })).toEqual({
      counters: ["contacts", "customers"],
      attrs: { a: 1 },
      version: day(1),
      deleted: false,
    });
    expect(await counters(org)).toEqual({ contacts: 1, customers: 0 });
    // A name twice counts twice.
    await apply(org, { counters: ["contacts", "contacts"], version: day(3) }, "c2");
    expect(await counters(org)).toEqual({ contacts: 3, customers: 0 });
  });

  it("ignores an older state than the stored one, and keeps the stored version when none is given", async () => {
    const org = randomUUID();
    await apply(org, { counters: ["contacts"], version: day(5) });
    expect(await apply(org, { counters: ["contacts", "customers"], version: day(4) })).toBeUndefined();
    expect(await counters(org)).toEqual({ contacts: 1, customers: 0 });
    expect(await apply(org, { counters: ["contacts", "customers"] })).toMatchObject({ version: day(5) });
    expect(await apply(org, { counters: ["contacts"], version: day(5) })).toMatchObject({
      counters: ["contacts", "customers"],
      version: day(5),
    });
    expect(await counters(org)).toEqual({ contacts: 1, customers: 0 });
  });

  it("takes a deleted record's counters away for good: later states are ignored", async () => {
    const org = randomUUID();
    await apply(org, { counters: ["contacts", "customers"], version: day(1) });
    expect(await apply(org, null)).toMatchObject({ counters: ["contacts", "customers"], deleted: false });
    expect(await counters(org)).toEqual({ contacts: 0, customers: 0 });
    expect(await apply(org, { counters: ["contacts"], version: day(9) })).toBeUndefined();
    expect(await apply(org, null)).toBeUndefined();
    expect(await counters(org)).toEqual({ contacts: 0, customers: 0 });
    // A deletion of a record never seen leaves a tombstone and no counter below zero.
    expect(await apply(org, null, "never-seen")).toBeNull();
    expect(await apply(org, { counters: ["contacts"], version: day(9) }, "never-seen")).toBeUndefined();
    expect(await counters(org)).toEqual({ contacts: 0, customers: 0 });
  });

  it("moves many records in one call as one change after another would", async () => {
    // The same changes, in two organizations each: one call of applyRecords, and applyRecord on
    // each in turn. A record changed again, a stale state, a deletion and a name twice included.
    const script = (orgA: string, orgB: string): RecordChange[] => [
      {
        orgId: orgA,
        kind: "contact",
        id: "c1",
        next: { counters: ["contacts", "customers"], attrs: { a: 1 }, version: day(1) },
      },
      { orgId: orgA, kind: "contact", id: "c2", next: { counters: ["contacts"], version: day(1) } },
      { orgId: orgB, kind: "contact", id: "c1", next: { counters: ["contacts", "contacts"], version: day(2) } },
      { orgId: orgA, kind: "contact", id: "c1", next: { counters: ["contacts"], version: day(3) } },
      { orgId: orgA, kind: "contact", id: "c2", next: { counters: ["contacts", "customers"], version: day(0) } },
      { orgId: orgA, kind: "lead", id: "c1", next: { counters: ["customers"] } },
      { orgId: orgB, kind: "contact", id: "c1", next: null },
      { orgId: orgB, kind: "contact", id: "c1", next: { counters: ["contacts"], version: day(9) } },
      { orgId: orgA, kind: "contact", id: "c3", next: null },
      { orgId: orgA, kind: "contact", id: "c1", next: { counters: ["customers"], version: day(4) } },
    ];
    const [a1, b1, a2, b2] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const together = await db.transaction((tx) => applyRecords(tx, script(a1, b1)));
    const oneByOne = await db.transaction(async (tx) => {
      const results = [];
      for (const { orgId, kind, id, next } of script(a2, b2))
        results.push(await applyRecord(tx, orgId, kind, id, next));
      return results;
    });
    expect(together).toEqual(oneByOne);
    expect(
      together.map((previous) => (previous === undefined ? "ignored" : previous === null ? "new" : "moved")),
    ).toEqual(["new", "new", "new", "moved", "ignored", "new", "moved", "ignored", "new", "moved"]);
    expect(await counters(a1)).toEqual({ contacts: 1, customers: 2 });
    expect(await counters(a1)).toEqual(await counters(a2));
    expect(await counters(b1)).toEqual({ contacts: 0, customers: 0 });
    expect(await counters(b1)).toEqual(await counters(b2));
    const stored = async (orgId: string) =>
      (
        await db.query(
          `SELECT kind, id, counters, attrs, version, deleted FROM analytics.records WHERE org_id = $1 ORDER BY kind, id`,
          [orgId],
        )
      ).rows;
    expect(await stored(a1)).toEqual(await stored(a2));
    expect(await stored(b1)).toEqual(await stored(b2));
  });

  it("finds the stored records by their key in the plan it keeps, however many records there are", async () => {
    // Enough records that the table spans many pages, then the statement's generic plan (the
    // one a prepared statement keeps after a few runs): every stored state through the primary
    // key, none by reading the whole table (which a hash join of the batch did).
    const org = randomUUID();
    const many = Array.from(
      { length: 3_000 },
      (_, i): RecordChange => ({ orgId: org, kind: "contact", id: `m${i}`, next: { counters: ["contacts"] } }),
    );
    await db.transaction((tx) => applyRecords(tx, many));
    const plan = await db.transaction(async (tx) => {
      await tx.query("SET LOCAL plan_cache_mode = force_generic_plan");
      await tx.query(`PREPARE apply_records_plan(jsonb) AS ${APPLY_RECORDS}`);
      const explained = await tx.query<Record<string, string>>(`EXPLAIN EXECUTE apply_records_plan('[]')`);
      await tx.query("DEALLOCATE apply_records_plan");
      return explained.rows.map((row) => Object.values(row)[0]).join("\n");
    });
    expect(plan).toMatch(/Index Scan using records_pkey on records/);
    expect(plan).not.toMatch(/Seq Scan on records/);
  });
});
