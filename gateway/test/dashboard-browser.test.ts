import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ApiClient, eventually, newTenant, testAdmin, type Tenant } from "@voiceops/platform/testing";
import {
  chromiumAvailable,
  criticalViolations,
  inCi,
  launchBrowser,
  screenshot,
  type Browser,
} from "./browser-helpers.js";

// The dashboard in a real browser (Debian's Chromium through playwright-core; nothing is
// downloaded): set-up link, sign-in, the overview's charts from real statistics, "Generate
// key" shown once and working against the API, revoking it, no console errors, and an
// axe-core scan without critical violations. Without Chromium the test is skipped, except
// under CI=true, where it fails.

const baseUrl = inject("baseUrl");
const admin = testAdmin();
const PASSWORD = "a long browser password";

describe.skipIf(!chromiumAvailable && !inCi)("the dashboard in Chromium", () => {
  let browser: Browser;
  let page: Page;
  let tenant: Tenant;
  let email: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    page = browser.page;

    tenant = await newTenant(baseUrl, admin);
    // Real statistics for the charts: service requests and a call made through the API.
    const contact = await tenant.owner.post("/api/contacts", { name: "Chart Customer", phone_number: "+15550103000" });
    for (const description of ["Leaking tap", "No heat", "Broken door"])
      await tenant.owner.post("/api/service-requests", { description, contact_id: contact.body.id });
    await eventually(
      async () =>
        (await tenant.owner.get("/api/statistics/service-requests/by-status")).body.total === 3 ? true : undefined,
      30_000,
      200,
    );
    email = `owner-${Date.now()}@example.com`;
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("a set-up link sets the password and opens the overview with its charts drawn", async () => {
    const created = await admin.request("POST", `/admin/organizations/${tenant.orgId}/users`, { email, role: "owner" });
    expect(created.status).toBe(201);
    await page.goto(created.body.setup_url);
    await page.getByLabel("Password (at least 12 characters)").fill(PASSWORD);
    await page.getByLabel("The same password again").fill(PASSWORD);
    await page.getByRole("button", { name: "Set password and sign in" }).click();
    await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
    await page.locator(".plot canvas").first().waitFor();
    expect(await page.locator(".plot canvas").count()).toBeGreaterThanOrEqual(2);
    const width = await page
      .locator(".plot canvas")
      .first()
      .evaluate((canvas) => (canvas as unknown as { width: number }).width);
    expect(width).toBeGreaterThan(0);
    await expect.poll(() => page.getByText("Service requests by status (3)").count()).toBe(1);
    expect(await criticalViolations(page)).toEqual([]);
    await screenshot(page, "dashboard-overview.png");
  });

  it("signs out, and signs in again with the keyboard", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    expect(await criticalViolations(page)).toEqual([]);
    await page.getByLabel("Email").focus();
    await page.keyboard.type(email);
    await page.keyboard.press("Tab");
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
  });

  it("generates a key shown once that works against the API, then revokes it", async () => {
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByRole("heading", { level: 1, name: "API keys" }).waitFor();
    await page.getByLabel("Key name").fill("Browser key");
    await page.getByRole("button", { name: "Generate key" }).click();
    const shown = page.getByLabel("New API key");
    await shown.waitFor();
    const key = await shown.inputValue();
    expect(key).toMatch(/^vo_/);
    expect(await criticalViolations(page)).toEqual([]);
    await screenshot(page, "dashboard-api-keys.png");
    const client = new ApiClient(baseUrl, key);
    expect((await client.get("/api/contacts")).status).toBe(200);
    await page.getByRole("button", { name: "I have saved it" }).click();
    expect(await page.content()).not.toContain(key);
    await page.getByRole("button", { name: "Revoke Browser key" }).click();
    await page.getByRole("button", { name: "Confirm revoke Browser key" }).click();
    await page.getByText(/^revoked /).waitFor();
    expect((await client.get("/api/contacts")).status).toBe(401);
    // After a reload the key is listed, never shown.
    await page.reload();
    await page.getByRole("cell", { name: "Browser key" }).waitFor();
    expect(await page.content()).not.toContain(key);
  });

  it("changes the business hours", async () => {
    await page.getByRole("link", { name: "Business hours" }).click();
    const monday = page.getByLabel("Monday");
    await monday.waitFor();
    await monday.fill("09:00-12:00, 13:00-18:00");
    await page.getByRole("button", { name: "Save business hours" }).click();
    await page.getByText("Saved.").waitFor();
    expect((await tenant.owner.get("/api/settings/business-hours")).body.business_hours.mon).toEqual([
      { start: "09:00", end: "12:00" },
      { start: "13:00", end: "18:00" },
    ]);
    expect(await criticalViolations(page)).toEqual([]);
  });

  it("logged no console error on any page", () => {
    expect(browser.consoleErrors).toEqual([]);
  });

  // After the console check: Chromium logs every 4xx answer as a failed resource load.
  it("shows the API's error for a bad interval and changes nothing", async () => {
    const monday = page.getByLabel("Monday");
    await monday.fill("25:00-26:00");
    await page.getByRole("button", { name: "Save business hours" }).click();
    await page.getByRole("alert").waitFor();
    expect(await page.getByRole("alert").textContent()).toMatch(/mon/);
    expect((await tenant.owner.get("/api/settings/business-hours")).body.business_hours.mon).toHaveLength(2);
  });
});
