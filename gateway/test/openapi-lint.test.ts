import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, inject, it } from "vitest";

// The document the gateway serves passes Redocly's linter (its recommended rules, as
// redocly.yaml at the repository root configures them) with no error and no warning.

const baseUrl = inject("baseUrl");
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const require = createRequire(import.meta.url);

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer?: string }[] }[];
}

describe("the served OpenAPI document under a third-party linter", () => {
  it("has no error and no warning with @redocly/cli lint", async () => {
    const dir = await mkdtemp(join(tmpdir(), "openapi-lint-"));
    try {
      const file = join(dir, "openapi.json");
      const res = await fetch(`${baseUrl}/openapi.json`);
      expect(res.status).toBe(200);
      await writeFile(file, await res.text());
      const cli = join(dirname(require.resolve("@redocly/cli/package.json")), "bin", "cli.js");
      const run = await promisify(execFile)(
        process.execPath,
        [cli, "lint", file, "--config", join(root, "redocly.yaml"), "--format", "json"],
        {
          cwd: dir,
          // Nothing is fetched or sent: no telemetry, no update check.
          env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" },
          maxBuffer: 64 * 1024 * 1024,
        },
      ).catch((error: { stdout?: string; stderr?: string }) => ({
        stdout: error.stdout ?? "",
        stderr: error.stderr ?? "",
      }));
      const start = run.stdout.indexOf("{");
      expect(start, `no JSON report from redocly: ${run.stdout}\n${run.stderr}`).toBeGreaterThanOrEqual(0);
      const report = JSON.parse(run.stdout.slice(start)) as LintReport;
      const problems = report.problems.map(
        (p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? "?"}`,
      );
      expect(problems.slice(0, 30)).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
