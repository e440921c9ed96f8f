import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@voiceops/platform";
import { serviceDatabase } from "@voiceops/platform/testing";
import { commsService } from "../src/index.js";
import { ContactCopies, type ContactCopy } from "../src/store/contacts.js";

// Copies of CRM contacts saved together or one at a time end the same, against the run's real
// database (PostgreSQL, or PGlite in memory).
describe("ContactCopies.saveAll", () => {
  let db: Database;
  const copies = new ContactCopies();
  const day = (n: number) => new Date(Date.UTC(2026, 10, n));

  beforeAll(async () => {
    db = await serviceDatabase(commsService, "contact-copies-test");
  });
  afterAll(async () => {
    await db?.close();
  });

  const stored = async (orgId: string) =>
    (
      await db.query(`SELECT id::text, name, phone_number, version FROM comms.contacts WHERE org_id = $1 ORDER BY id`, [
        orgId,
      ])
    ).rows;

  it("keeps, of a contact given several times, the later of its newest versions, as saving each in turn does", async () => {
    const [c1, c2, c3, c4] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const script = (orgId: string, other: string): (ContactCopy & { orgId: string })[] => [
      { orgId, id: c1, name: "Ann", phoneNumber: "+15550100001", version: day(2) },
      { orgId, id: c2, name: "Bob", phoneNumber: null, version: day(1) },
      { orgId, id: c1, name: "Ann older", phoneNumber: null, version: day(1) },
      { orgId: other, id: c1, name: "Ann elsewhere", phoneNumber: null, version: day(1) },
      { orgId, id: c2, name: "Bob same version, later", phoneNumber: "+15550100002", version: day(1) },
      { orgId, id: c3.toUpperCase(), name: "Cy", phoneNumber: null, version: day(3) },
      { orgId, id: c3, name: "Cy newer", phoneNumber: null, version: day(4) },
      { orgId, id: c4.toUpperCase(), name: "Di", phoneNumber: null, version: day(3) },
      { orgId, id: c4, name: "Di newer", phoneNumber: null, version: day(4) },
    ];
    const [a1, b1, a2, b2] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    // A stored copy newer than the ones given stays.
    for (const orgId of [a1, a2])
      await copies.save(db, orgId, { id: c3, name: "Cy stored", phoneNumber: null, version: day(5) });

    await db.transaction((tx) => copies.saveAll(tx, script(a1, b1)));
    await db.transaction(async (tx) => {
      for (const { orgId, ...copy } of script(a2, b2)) await copies.save(tx, orgId, copy);
    });

    expect(await stored(a1)).toEqual(await stored(a2));
    expect(await stored(b1)).toEqual(await stored(b2));
    const names = Object.fromEntries((await stored(a1)).map((row) => [row.id, row.name]));
    expect(names).toEqual({ [c1]: "Ann", [c2]: "Bob same version, later", [c3]: "Cy stored", [c4]: "Di newer" });
    expect((await stored(b1)).map((row) => row.name)).toEqual(["Ann elsewhere"]);
  });
});
