import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@voiceops/platform";
import {
  handlerTestbed,
  isolatedDatabase,
  serviceDatabase,
  testEnv,
  type HandlerTestbed,
} from "@voiceops/platform/testing";
import { ContactStatus, CrmService } from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";
import { crmService } from "../src/index.js";

// An unfiltered listing's total comes from counts that triggers keep: writes append their
// changes, the service folds them into the counts (migration 005). The totals hold before and
// after a fold, and two writers of one organization never wait for each other.

describe("contact counts", () => {
  let bed: HandlerTestbed;
  beforeAll(async () => {
    bed = await handlerTestbed(crmService);
  });
  afterAll(async () => {
    await bed?.close();
  });

  const fold = () => bed.db.query("SELECT crm.fold_contact_count_changes()");

  it("keeps an unfiltered listing's totals through inserts, status changes and deletes, folded or not", async () => {
    const crm = bed.client(CrmService, { orgId: randomUUID() });
    const totals = async () => {
      const [people, prospects, leads] = await Promise.all([
        crm.listContacts({}),
        crm.listContacts({ prospects: true }),
        crm.listContacts({ status: ContactStatus.LEAD }),
      ]);
      return [people.total, prospects.total, leads.total];
    };
    const created = [];
    for (let i = 0; i < 5; i++) created.push((await crm.createContact({ name: `Counted ${i}` })).contact?.id ?? "");
    await crm.createContact({ name: "Prospect", status: ContactStatus.PROSPECT });
    expect(await totals()).toEqual([5, 1, 5]);
    await fold();
    expect(await totals()).toEqual([5, 1, 5]);
    await crm.updateContact({
      contactId: created[0],
      contact: { status: ContactStatus.CUSTOMER },
      updateMask: { paths: ["status"] },
    });
    await crm.updateContact({
      contactId: created[1],
      contact: { status: ContactStatus.PROSPECT },
      updateMask: { paths: ["status"] },
    });
    await crm.deleteContact({ contactId: created[2] });
    expect(await totals()).toEqual([3, 2, 2]);
    await fold();
    expect(await totals()).toEqual([3, 2, 2]);
    const changes = await bed.db.query<{ n: number }>("SELECT count(*)::int AS n FROM crm.contact_count_changes");
    expect(changes.rows[0]?.n).toBe(0);
  });
});

// PostgreSQL only: PGlite runs one statement at a time, so its writers never overlap.
describe.skipIf(!process.env.DATABASE_URL)("contact counts on PostgreSQL", () => {
  let database: { url: string; drop(): Promise<void> };
  let db: Database;
  beforeAll(async () => {
    database = await isolatedDatabase(process.env.DATABASE_URL ?? "");
    db = await serviceDatabase(crmService, "counts-test", testEnv({ DATABASE_URL: database.url }));
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it("lets a second writer of the organization commit while the first one's transaction is open", async () => {
    const orgId = randomUUID();
    const insert = `INSERT INTO crm.contacts (id, org_id, name, status) VALUES (gen_random_uuid(), $1, $2, 'lead')`;
    const first = new pg.Client({ connectionString: database.url });
    const second = new pg.Client({ connectionString: database.url, statement_timeout: 5_000 });
    await Promise.all([first.connect(), second.connect()]);
    try {
      await first.query("BEGIN");
      await first.query(insert, [orgId, "First"]);
      // With a shared counter row this insert would wait for the first transaction's lock.
      await second.query(insert, [orgId, "Second"]);
      await first.query("COMMIT");
      const total = `SELECT sum(n)::int AS n FROM (SELECT n FROM crm.contact_counts WHERE org_id = $1 UNION ALL SELECT n FROM crm.contact_count_changes WHERE org_id = $1) counted`;
      expect((await db.query<{ n: number }>(total, [orgId])).rows[0]?.n).toBe(2);
      // Folds running side by side (replicas of the service) count every change once.
      await Promise.all([
        db.query("SELECT crm.fold_contact_count_changes()"),
        db.query("SELECT crm.fold_contact_count_changes()"),
      ]);
      expect((await db.query<{ n: number }>(total, [orgId])).rows[0]?.n).toBe(2);
    } finally {
      await Promise.all([first.end(), second.end()]);
    }
  });
});
