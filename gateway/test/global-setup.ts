import type { TestProject } from "vitest/node";
import { startSystem, type RunningSystem } from "../src/system.js";
import { testEnv } from "@voiceops/platform/testing";

let system: RunningSystem | undefined;

// The types of what setup() provides (vitest's ProvidedContext) are declared in
// @voiceops/platform/testing, next to the helpers that inject them.

export async function setup(project: TestProject) {
  const env = testEnv({ RATE_LIMIT_PER_MINUTE: "1000000" });
  // Against PostgreSQL and NATS, calls between gateway and services cross the loopback gRPC
  // ports as in distributed mode; embedded, they stay in process as `npm start` runs them.
  const distributed = Boolean(process.env.DATABASE_URL && process.env.NATS_URL);
  system = await startSystem({ env, inMemory: true, inProcessCalls: !distributed });
  project.provide("baseUrl", system.url);
  project.provide("adminUrl", system.adminUrl);
  project.provide("adminToken", system.adminToken);
  project.provide("internalToken", env.INTERNAL_TOKEN ?? "");
  project.provide("internalApiKey", env.INTERNAL_API_KEY ?? "");
  project.provide("serviceUrls", Object.fromEntries(system.services.map((s) => [s.name, s.url])));
  project.provide("mode", `${system.db.kind}+${system.bus.kind}`);
  project.provide("serverPid", process.pid);
  process.stdout.write(
    `test system: ${system.db.kind} storage, ${system.bus.kind} bus, ${distributed ? "gRPC over loopback" : "in-process calls"}\n`,
  );
}

export async function teardown() {
  await system?.stop();
}
