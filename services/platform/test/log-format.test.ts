import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, readInfraConfig } from "../src/index.js";

// LOG_FORMAT: pretty lines for a person, JSON for a collector; a child's stdout is a pipe, so
// unset means JSON there.

const ROOT = join(import.meta.dirname, "..", "..", "..");
const INDEX = join(ROOT, "services/platform/src/index.ts");

/** What a process that logs one line as the launchers do prints, with the given environment added. */
function run(extraEnv: Record<string, string>): Promise<{ code: number | null; stdout: string }> {
  const script = `import { createLogger, readInfraConfig } from ${JSON.stringify(INDEX)};
const infra = readInfraConfig(process.env);
createLogger(infra.logLevel, "format-test", undefined, infra.logFormat).info({ orders: 3 }, "hello operator");`;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...extraEnv } as NodeJS.ProcessEnv,
      // Generous: importing the platform through tsx takes seconds on a loaded machine.
      timeout: 150_000,
    });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.resume();
    child.on("close", (code) => resolve({ code, stdout }));
  });
}

describe("LOG_FORMAT", () => {
  it("pretty prints a human line, not JSON", async () => {
    const { code, stdout } = await run({ LOG_FORMAT: "pretty", NO_COLOR: "1" });
    expect(code).toBe(0);
    const line = stdout.split("\n").find((l) => l.includes("hello operator"));
    expect(line, stdout).toBeDefined();
    expect(() => JSON.parse(line as string)).toThrow();
    expect(line).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(format-test\): hello operator/);
    expect(stdout).toContain("orders: 3");
  }, 180_000);

  it("unset, on a pipe, prints JSON lines", async () => {
    const { code, stdout } = await run({});
    expect(code).toBe(0);
    const line = JSON.parse(stdout.trim().split("\n")[0] as string) as Record<string, unknown>;
    expect(line).toMatchObject({ msg: "hello operator", name: "format-test", level: 30, orders: 3 });
  }, 180_000);

  it("json forces JSON", async () => {
    const { code, stdout } = await run({ LOG_FORMAT: "json" });
    expect(code).toBe(0);
    expect(JSON.parse(stdout.trim())).toMatchObject({ msg: "hello operator" });
  }, 180_000);

  it("any other value is a configuration error naming LOG_FORMAT", () => {
    expect(() => readInfraConfig({ LOG_FORMAT: "colour" })).toThrow(ConfigError);
    expect(() => readInfraConfig({ LOG_FORMAT: "colour" })).toThrow(/LOG_FORMAT/);
    expect(readInfraConfig({}).logFormat).toBe("auto");
    expect(readInfraConfig({ LOG_FORMAT: "pretty" }).logFormat).toBe("pretty");
  });
});
