import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AdminClient, ApiClient, newTenant, testEnv } from "@voiceops/platform/testing";
import { startSystem } from "../src/system.js";

describe("restart", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "voiceops-restart-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("keeps organizations, keys and contacts across a stop and a start", async () => {
    // Same tokens and data folder both times; in embedded mode the data lives under DATA_DIR.
    const env = testEnv({ DATA_DIR: dataDir });
    const first = await startSystem({ env });
    let key: string;
    let contactId: string;
    try {
      const tenant = await newTenant(first.url, new AdminClient(first.adminUrl, first.adminToken));
      key = (tenant.owner.apiKey ?? "") as string;
      const created = await tenant.owner.post("/api/contacts", {
        name: "Survives Restart",
        phone_number: "555-010-9999",
      });
      expect(created.status).toBe(201);
      contactId = created.body.id;
    } finally {
      await first.stop();
    }

    const second = await startSystem({ env });
    try {
      const api = new ApiClient(second.url, key);
      const read = await api.get(`/api/contacts/${contactId}`);
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({ name: "Survives Restart", phone_number: "+15550109999" });
    } finally {
      await second.stop();
    }
  });
});
