import { randomUUID } from "node:crypto";
import { describe, expect, inject, it } from "vitest";
import { runEntry, testAdmin, testEnv } from "@voiceops/platform/testing";

// npm run user: the first user of an organization, and their set-up link.

const env = () => testEnv({ ADMIN_URL: inject("adminUrl"), ADMIN_TOKEN: inject("adminToken"), LOG_LEVEL: "info" });

describe("the user CLI", () => {
  it("creates the organization and an owner, and prints the set-up link that works once", async () => {
    const org = `CLI Users ${randomUUID()}`;
    const email = `first-${randomUUID()}@example.com`;
    const cli = runEntry("gateway/src/cli/user.ts", env(), ["--org", org, "--email", email]);
    expect(await cli.exited, cli.output()).toBe(0);
    const line = cli
      .output()
      .split("\n")
      .find((l) => l.startsWith("{"));
    const printed = JSON.parse(line ?? "{}");
    expect(printed).toMatchObject({ email, role: "owner", setup_url: expect.stringMatching(/\/app\/setup#token=su_/) });
    const token = decodeURIComponent(new URL(printed.setup_url).hash.slice("#token=".length));
    const setup = await fetch(`${inject("baseUrl")}/api/auth/setup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token, password: "a long enough password" }),
    });
    expect(setup.status).toBe(200);
    const users = await testAdmin().request("GET", `/admin/organizations/${printed.organization_id}/users`);
    expect(users.body.items).toEqual([
      expect.objectContaining({ email, role: "owner", last_sign_in_at: expect.any(String) }),
    ]);
  });

  it("validates its arguments before creating anything", async () => {
    const org = `CLI Users Bad ${randomUUID()}`;
    const cli = runEntry("gateway/src/cli/user.ts", env(), ["--org", org, "--email", "x@example.com", "--role", "god"]);
    expect(await cli.exited).toBe(1);
    expect(cli.output().trim()).toMatch(/^invalid --role "god"/);
    expect((await testAdmin().request("GET", `/admin/organizations?name=${encodeURIComponent(org)}`)).body.total).toBe(
      0,
    );
  });
});
