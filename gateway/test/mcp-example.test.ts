import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, inject, it } from "vitest";
import { openTenant } from "./mcp-helpers.js";

// The example call flow (examples/voice-agent-call.ts) run as its README shows, as a process of
// its own against the test system: it looks up the caller, holds and books a slot and saves the
// caller's memory, all through /mcp; the REST API then shows what it did.

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

function runExample(
  env: Record<string, string>,
): Promise<{ code: number | null; steps: Record<string, any>[]; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(`${ROOT}node_modules/.bin/tsx`, ["examples/voice-agent-call.ts"], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code) =>
      resolve({
        code,
        stderr,
        steps: stdout
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Record<string, any>),
      }),
    );
  });
}

describe("examples/voice-agent-call.ts", () => {
  it("runs a call through the tools: lookup, hold, book, remember; a second call knows the caller", async () => {
    const t = await openTenant();
    expect(
      (
        await t.owner.post("/api/scheduling/types", {
          name: "Estimate visit",
          duration_minutes: 30,
          min_notice_minutes: 0,
        })
      ).status,
    ).toBe(201);
    const env = {
      MCP_URL: `${inject("baseUrl")}/mcp`,
      API_KEY: t.member.apiKey ?? "",
      CALLER: "(555) 013-4477",
      CALLER_NAME: "Robin Ames",
    };

    const first = await runExample(env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.steps.map((s) => s.step)).toEqual([
      "lookup_caller",
      "save_contact",
      "find_slots",
      "hold_slot",
      "book_appointment",
      "save_caller_memory",
      "done",
    ]);
    expect(first.steps[0]).toMatchObject({ known: false, memory: null, do_not_call: false });
    const done = first.steps.at(-1) ?? {};
    const appointment = await t.owner.get(`/api/scheduling/appointments?contact_id=${done.contactId}`);
    expect(appointment.body.items).toEqual([
      expect.objectContaining({
        id: done.appointmentId,
        status: "scheduled",
        contact: expect.objectContaining({ name: "Robin Ames", phone_number: "+15550134477" }),
      }),
    ]);
    const memory = await t.owner.get("/api/caller-memory?phone_number=5550134477");
    expect(memory.body.summary).toBe(done.summary);

    const second = await runExample(env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.steps[0]).toMatchObject({ known: true, memory: done.summary });
    expect(second.steps.map((s) => s.step)).not.toContain("save_contact");
  });

  it("exits 1 with the tool's error when the organization has nothing to book", async () => {
    const t = await openTenant();
    const run = await runExample({
      MCP_URL: `${inject("baseUrl")}/mcp`,
      API_KEY: t.member.apiKey ?? "",
      CALLER: "555-013-9000",
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("no appointment type");
  });
});
