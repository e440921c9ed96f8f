import type { TestProject } from "vitest/node";
import { startSystem, type RunningSystem } from "../src/system.js";
import { testEnv } from "@voiceops/platform/testing";

let system: RunningSystem | undefined;

// The types of what setup() provides (vitest's ProvidedContext) are declared in
// @voiceops/platform/testing, next to the helpers that inject them.

export async function setup(project: TestProject) {
  const env = testEnv({ RATE_LIMIT_PER_MINUTE: "1000000" });
  system = await startSystem({ env, inMemory: true });
  project.provide("baseUrl", system.url);
  project.provide("adminUrl", system.adminUrl);
  project.provide("adminToken", system.adminToken);
  project.provide("internalToken", env.INTERNAL_TOKEN ?? "");
  project.provide("serviceUrls", Object.fromEntries(system.services.map((s) => [s.name, s.url])));
  project.provide("mode", `${system.db.kind}+${system.bus.kind}`);
  process.stdout.write(`test system: ${system.db.kind} storage, ${system.bus.kind} bus\n`);
}

export async function teardown() {
  await system?.stop();
}
