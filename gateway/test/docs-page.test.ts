import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminClient, newTenant, testEnv, type Tenant } from "@voiceops/platform/testing";
import { startSystem, type RunningSystem } from "../src/system.js";
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable } from "./browser-helpers.js";

// The /docs page as a person uses it, in Chromium: Swagger UI renders the operations from
// /openapi.json, and "Try it out" with an API key under "Authorize" calls the API.

// Without Chromium the test is skipped on a developer's machine; CI installs it (.ci/run).
describe("Chromium for the docs page test", () => {
  it.runIf(process.env.CI === "true")("is installed in CI", () => {
    expect(chromiumAvailable, `${CHROMIUM} is missing`).toBe(true);
  });
});

describe.runIf(chromiumAvailable)("the /docs page in Chromium", () => {
  let system: RunningSystem;
  let tenant: Tenant;
  let browser: Browser;
  beforeAll(async () => {
    // launch() gives the browser a fresh temporary profile of its own.
    system = await startSystem({ env: testEnv(), inMemory: true });
    tenant = await newTenant(system.url, new AdminClient(system.adminUrl, system.adminToken));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  it("renders the operations with no console errors and runs a GET with an API key", async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));
    // Every asset comes from the gateway: a request elsewhere (a CDN) is a failure.
    const elsewhere: string[] = [];
    page.on("request", (request) => {
      if (!request.url().startsWith(system.url)) elsewhere.push(request.url());
    });

    await page.goto(`${system.url}/docs`);
    const listContacts = page.locator(".opblock-get", { has: page.locator('[data-path="/api/contacts"]') }).first();
    await listContacts.waitFor({ timeout: 120_000 });
    await expect(page.getByText("List contacts").first().isVisible()).resolves.toBe(true);

    // Authorize with the organization's key, as the document's ApiKeyAuth scheme asks.
    await page
      .getByRole("button", { name: /Authorize/ })
      .first()
      .click();
    // The dialog has a form per security scheme: the API key's is ApiKeyAuth.
    const form = page.locator(".dialog-ux form", { hasText: "ApiKeyAuth" });
    await form
      .locator("input")
      .first()
      .fill(tenant.owner.apiKey as string);
    await form.locator("button.modal-btn.authorize").click();
    await form.locator("button.btn-done").click();

    await listContacts.locator(".opblock-summary").first().click();
    await listContacts.getByRole("button", { name: "Try it out" }).click();
    const answered = page.waitForResponse(
      (response) => new URL(response.url()).pathname === "/api/contacts" && response.request().method() === "GET",
      { timeout: 120_000 },
    );
    await listContacts.getByRole("button", { name: "Execute" }).click();
    const response = await answered;
    expect(response.status()).toBe(200);
    expect(response.request().headers()["x-api-key"]).toBe(tenant.owner.apiKey);
    await listContacts.locator(".live-responses-table tr.response .response-col_status").first().waitFor();
    expect(
      await listContacts.locator(".live-responses-table tr.response .response-col_status").first().textContent(),
    ).toContain("200");

    expect(problems).toEqual([]);
    expect(elsewhere).toEqual([]);
  }, 300_000);
});
