import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "@voiceops/platform";
import { testEnv } from "@voiceops/platform/testing";
import { startSystem, type RunningSystem } from "../src/system.js";

// Kubernetes probes a replica every few seconds: their request lines are debug, so the info log
// holds the requests people made.

const INFO = 30;
const DEBUG = 20;

describe("request log levels", () => {
  const lines: { level: number; msg: string; route?: string; status?: number }[] = [];
  let system: RunningSystem;
  beforeAll(async () => {
    const stream = new Writable({
      write(chunk, _encoding, done) {
        for (const line of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    system = await startSystem({ env: testEnv(), inMemory: true, logger: createLogger("debug", "voiceops", stream) });
  });
  afterAll(async () => {
    await system?.stop();
  });

  it("logs liveness and readiness probes at debug and other requests at info", async () => {
    for (const path of ["/health/live", "/api/health/live", "/health/ready", "/api/contacts"])
      await fetch(`${system.url}${path}`);
    const requests = lines.filter((line) => line.msg === "request");
    const levelOf = (route: RegExp) =>
      requests.filter((line) => route.test(line.route ?? "")).map((line) => line.level);
    expect(levelOf(/^GET \/health\/live$/)).toContain(DEBUG);
    expect(levelOf(/^GET \/api\/health\/live$/)).toContain(DEBUG);
    expect(levelOf(/^GET \/health\/ready$/)).toEqual([DEBUG]);
    expect(requests.filter((line) => /health\/(live|ready)/.test(line.route ?? "") && line.level >= INFO)).toEqual([]);
    expect(requests.find((line) => line.status === 401)?.level, JSON.stringify(requests)).toBe(INFO);
  });
});
