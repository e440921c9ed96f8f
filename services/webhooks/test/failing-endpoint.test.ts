import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminClient, eventually, isolatedDatabase, newTenant, testEnv } from "@voiceops/platform/testing";
import { startSystem, type RunningSystem } from "../../../gateway/src/system.js";
import { Receiver } from "./receiver.js";

// An endpoint whose every delivery has failed for 5 days is disabled ("failing"). Distributed
// mode, on a database of its own: the test backdates the start of the failures in the database
// rather than waiting 5 days.

const distributed = Boolean(process.env.DATABASE_URL && process.env.NATS_URL);

describe.skipIf(!distributed)("an endpoint failing for 5 days", () => {
  let database: Awaited<ReturnType<typeof isolatedDatabase>>;
  let system: RunningSystem;
  const receiver = new Receiver();

  beforeAll(async () => {
    database = await isolatedDatabase(process.env.DATABASE_URL ?? "");
    system = await startSystem({ env: testEnv({ DATABASE_URL: database.url }) });
    receiver.answer = () => ({ status: 500 });
    await receiver.start();
  });
  afterAll(async () => {
    await system?.stop();
    await receiver.stop();
    await database?.drop();
  });

  it("is disabled by its next failure, and one failing for less is not", async () => {
    const tenant = await newTenant(system.url, new AdminClient(system.adminUrl, system.adminToken));
    const old = (
      await tenant.owner.post("/api/webhooks", { url: receiver.url("/old"), event_types: ["contact.created"] })
    ).body;
    const recent = (
      await tenant.owner.post("/api/webhooks", { url: receiver.url("/recent"), event_types: ["contact.created"] })
    ).body;
    await system.db.query(
      "UPDATE webhooks.endpoints SET failing_since = now() - interval '5 days 1 minute' WHERE id = $1",
      [old.id],
    );
    await system.db.query("UPDATE webhooks.endpoints SET failing_since = now() - interval '4 days' WHERE id = $1", [
      recent.id,
    ]);
    expect((await tenant.owner.post("/api/contacts", { name: "Fails Often" })).status).toBe(201);
    const disabled = await eventually(async () => {
      const read = await tenant.owner.get(`/api/webhooks/${old.id}`);
      return read.body.enabled ? undefined : read.body;
    }, 60_000);
    expect(disabled.disabled_reason).toBe("failing");
    // The other endpoint's attempt of the same event has been made and logged by now too.
    await eventually(
      async () =>
        (await tenant.owner.get(`/api/webhooks/${recent.id}/deliveries?status=failed`)).body.total === 1
          ? true
          : undefined,
      60_000,
    );
    expect((await tenant.owner.get(`/api/webhooks/${recent.id}`)).body).toMatchObject({
      enabled: true,
      disabled_reason: null,
    });
  });
});
