import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

// The default destination writes log lines in batches (log.ts): a line still leaves the process
// soon on an idle process, and at exit, a crash's included.

const ROOT = join(import.meta.dirname, "..", "..", "..");
const LOG = join(ROOT, "services/platform/src/log.ts");

/**
 * Runs a script that logs through createLogger's default destination; the lines it printed.
 * Its stdin gets a line once "first line" has come out.
 */
function run(then: string): Promise<{ code: number | null; lines: string[] }> {
  const script = `import { createLogger } from ${JSON.stringify(LOG)};
const logger = createLogger("info", "destination-test");
logger.info({ n: 1 }, "first line");
${then}`;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME } as NodeJS.ProcessEnv,
      // A script left waiting (its line never came out) is stopped, and the test fails on what it printed.
      timeout: 150_000,
    });
    const lines: string[] = [];
    let rest = "";
    child.stdout.on("data", (chunk: Buffer) => {
      const parts = (rest + chunk.toString()).split("\n");
      rest = parts.pop() ?? "";
      for (const part of parts) {
        const msg = (JSON.parse(part) as { msg: string }).msg;
        lines.push(msg);
        if (msg === "first line") child.stdin.write("go\n");
      }
    });
    child.stderr.resume();
    child.stdin.on("error", () => undefined);
    child.on("close", (code) => resolve({ code, lines }));
  });
}

describe("the default log destination", () => {
  it("writes a line of an idle process out while it runs, not at exit", async () => {
    // The process ends only once its first line has reached the reader: a line held until exit
    // would never come, and the process is stopped after 20 s with nothing printed.
    const result = await run(`process.stdin.once("data", () => { logger.info("second line"); process.exit(0); });`);
    expect(result.code).toBe(0);
    expect(result.lines).toEqual(["first line", "second line"]);
  }, 180_000);

  it("writes the lines logged just before process.exit", async () => {
    const result = await run(`logger.warn("last words"); process.exit(3);`);
    expect(result.code).toBe(3);
    expect(result.lines).toEqual(["first line", "last words"]);
  }, 180_000);

  it("writes the lines logged just before an uncaught exception", async () => {
    const result = await run(`logger.error("about to fail"); setTimeout(() => { throw new Error("boom"); }, 10);`);
    expect(result.code).not.toBe(0);
    expect(result.lines).toEqual(["first line", "about to fail"]);
  }, 180_000);
});
