import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  AdminClient,
  ApiClient,
  eventually,
  freePort,
  isolatedDatabase,
  newTenant,
  testEnv,
} from "@voiceops/platform/testing";
import { startSystem } from "../../../gateway/src/system.js";
import { createSource, search, settled } from "./knowledge-helpers.js";

// Ingestion survives the death of the process doing it: a system runs as a child process, is
// killed (SIGKILL, no shutdown) while it fetches a document, and a new system on the same
// storage takes the source up again once the dead worker's lease has run out.

const ROOT = join(import.meta.dirname, "..", "..", "..");

describe("ingestion interrupted by a crash", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "voiceops-kb-crash-"));
  let database: { url: string; drop(): Promise<void> } | undefined;
  afterAll(async () => {
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  // Starting a process through tsx and ingesting twice can take minutes on a loaded machine.
  it("is retried by the next worker after the process dies mid-ingestion", async () => {
    // The first request for the document never gets an answer; later ones do.
    let requests = 0;
    let firstRequest = () => {};
    const requested = new Promise<void>((resolve) => (firstRequest = resolve));
    const server = createServer((_req, res) => {
      requests++;
      if (requests === 1) return firstRequest();
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("Survivor document: the ocelot drain guard costs $35.");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const documentUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/doc.txt`;

    const [port, adminPort] = await Promise.all([freePort(), freePort()]);
    const settings: Record<string, string> = {
      KB_ALLOW_PRIVATE_URLS: "true",
      KB_INGEST_LEASE_SECONDS: "3",
      DATA_DIR: dataDir,
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
    };
    if (process.env.DATABASE_URL) {
      database = await isolatedDatabase(process.env.DATABASE_URL);
      settings.DATABASE_URL = database.url;
    }
    const env = testEnv(settings);
    const child = spawn(process.execPath, ["--import", "tsx", "gateway/src/embedded.ts"], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } as NodeJS.ProcessEnv,
      stdio: "ignore",
    });
    const exited = new Promise((resolve) => child.on("exit", resolve));
    let second: Awaited<ReturnType<typeof startSystem>> | undefined;
    try {
      const url = `http://127.0.0.1:${port}`;
      await eventually(
        async () => ((await fetch(`${url}/health/live`).catch(() => undefined))?.status === 200 ? true : undefined),
        240_000,
        200,
      );
      const tenant = await newTenant(url, new AdminClient(`http://127.0.0.1:${adminPort}`, env.ADMIN_TOKEN ?? ""));
      const created = await createSource(tenant.owner, { type: "url", url: documentUrl });
      await requested;
      child.kill("SIGKILL");
      await exited;

      second = await startSystem({ env: { ...env, PORT: "0", ADMIN_PORT: "0" } });
      const api = new ApiClient(second.url, tenant.owner.apiKey);
      const source = await settled(api, created.id, 120_000);
      expect(source, source.error ?? "").toMatchObject({ status: "ready", error: null });
      expect(requests).toBe(2);
      expect((await search(api, { query: "ocelot drain guard" })).results.map((r) => r.source_id)).toEqual([
        created.id,
      ]);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await second?.stop();
      server.closeAllConnections();
      server.close();
    }
  }, 480_000);
});
