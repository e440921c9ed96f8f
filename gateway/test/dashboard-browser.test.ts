import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ApiClient, eventually, newTenant, testAdmin, type Tenant } from "@voiceops/platform/testing";
import {
  chromiumAvailable,
  criticalViolations,
  inCi,
  launchBrowser,
  screenshot,
  setPassword,
  type Browser,
} from "./browser-helpers.js";

// The dashboard in a real browser (Debian's Chromium through playwright-core; nothing is
// downloaded): set-up link, sign-in, the overview's charts from real statistics, "Generate
// key" shown once and working against the API, revoking it, every other page showing records
// made through the API (a call with transcript and recording, contacts and leads, a service
// request with its quote, an appointment and an on-call shift, a campaign, a knowledge-base
// upload, a webhook delivery resent), the pages on a phone's screen, no console errors, and an
// axe-core scan without critical violations on each page. Without Chromium the test is
// skipped, except under CI=true, where it fails.

const baseUrl = inject("baseUrl");
const internalApiKey = inject("internalApiKey");
const admin = testAdmin();
const PASSWORD = "a long browser password";

/** A tenth of a second of silence as a WAV file: a recording the browser's player accepts. */
function silentWav(): Buffer {
  const samples = 800;
  const wav = Buffer.alloc(44 + samples * 2);
  wav.write("RIFF", 0);
  wav.writeUInt32LE(36 + samples * 2, 4);
  wav.write("WAVEfmt ", 8);
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(8000, 24);
  wav.writeUInt32LE(16000, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write("data", 36);
  wav.writeUInt32LE(samples * 2, 40);
  return wav;
}

describe.skipIf(!chromiumAvailable && !inCi)("the dashboard in Chromium", () => {
  let browser: Browser;
  let page: Page;
  let tenant: Tenant;
  let email: string;
  let hooks: http.Server;
  let hooksUrl: string;
  let appointmentDay: string;
  const hookRequests: string[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
    page = browser.page;

    tenant = await newTenant(baseUrl, admin);
    // A webhook receiver that takes everything: every new contact is a delivery to it.
    hooks = http.createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => {
        body += chunk;
      });
      req.on("end", () => {
        hookRequests.push(body);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => hooks.listen(0, "127.0.0.1", () => resolve()));
    hooksUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hooks`;
    expect((await tenant.owner.post("/api/webhooks", { url: hooksUrl, event_types: ["contact.created"] })).status).toBe(
      201,
    );
    // Real statistics for the charts: service requests and a call made through the API.
    const contact = await tenant.owner.post("/api/contacts", { name: "Chart Customer", phone_number: "+15550103000" });
    const requests = [];
    for (const description of ["Leaking tap", "No heat", "Broken door"])
      requests.push(await tenant.owner.post("/api/service-requests", { description, contact_id: contact.body.id }));
    expect(
      (await tenant.owner.post(`/api/service-requests/${requests[0]?.body.id}/quote?quote_amount_cents=25000`)).status,
    ).toBe(200);
    expect(
      (await tenant.owner.post("/api/leads", { name: "Lena Lead", phone_number: "+15550103001", source: "website" }))
        .status,
    ).toBe(201);
    // A call with its transcript and recording, as the voice runtime records it.
    const call = await tenant.owner.request("POST", "/api/activities", {
      body: {
        activity_type: "CALL_ENDED",
        session_id: "browser-call-1",
        contact_id: contact.body.id,
        metadata: {
          duration_seconds: 95,
          channel: "phone",
          direction: "inbound",
          from_number: "+15550103000",
          outcome: "service_request_created",
          transcription: [
            { role: "caller", text: "My kitchen tap is leaking.", start_seconds: 1 },
            { role: "assistant", text: "A plumber can come tomorrow morning.", start_seconds: 4 },
          ],
        },
      },
      headers: { "x-internal-key": internalApiKey },
    });
    expect(call.status).toBe(201);
    expect(
      (await tenant.owner.upload("PUT", "/api/calls/browser-call-1/recording", silentWav(), "audio/wav")).status,
    ).toBe(200);
    // A technician on call, and an appointment of theirs at the first free slot.
    const technician = await tenant.owner.post("/api/technicians", {
      name: "Alice Tech",
      phone_number: "+15550103002",
    });
    expect(technician.status).toBe(200);
    const hour = 3_600_000;
    expect(
      (
        await tenant.owner.post("/api/technicians/on-call/schedule", {
          technician_id: technician.body.id,
          start_at: new Date(Date.now() - hour).toISOString(),
          end_at: new Date(Date.now() + 8 * hour).toISOString(),
        })
      ).status,
    ).toBe(200);
    const type = await tenant.owner.post("/api/scheduling/types", {
      name: "Tap repair",
      duration_minutes: 60,
      min_notice_minutes: 0,
    });
    expect(type.status).toBe(201);
    const slots = await tenant.owner.post("/api/scheduling/check-availability", {
      appointment_type_id: type.body.id,
      technician_id: technician.body.id,
    });
    const slot = slots.body.slots[0] as { start: string };
    const booked = await tenant.owner.post("/api/scheduling/book", {
      appointment_type_id: type.body.id,
      start: slot.start,
      technician_id: technician.body.id,
      contact: { name: "Booked Customer", phone_number: "+15550103003" },
    });
    expect(booked.status).toBe(201);
    appointmentDay = slot.start.slice(0, 10); // the organization's zone is UTC, as the browser's
    const campaign = await tenant.owner.post("/api/campaigns", { name: "Spring reminders" });
    expect(campaign.status).toBe(201);
    expect(
      (
        await tenant.owner.post(`/api/campaigns/${campaign.body.id}/contacts/upload`, {
          contact_ids: [contact.body.id],
        })
      ).status,
    ).toBe(200);
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
    hooks?.close();
  });

  it("a set-up link sets the password and opens the overview with its charts drawn", async () => {
    const created = await admin.request("POST", `/admin/organizations/${tenant.orgId}/users`, { email, role: "owner" });
    expect(created.status).toBe(201);
    await setPassword(page, created.body.setup_url, PASSWORD);
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
    // The value each day's input has when it first enters the page: the stored hours, never an
    // empty field filled in a moment later, where it could land in the middle of typing.
    // Runs in the page (this file has no DOM types).
    await page.evaluate(`(() => {
      const seen = {};
      window.firstValues = seen;
      new MutationObserver(() => {
        for (const input of document.querySelectorAll("input[id^='hours-']")) seen[input.id] ??= input.value;
      }).observe(document.body, { childList: true, subtree: true });
    })()`);
    await page.getByRole("link", { name: "Business hours" }).click();
    const monday = page.getByLabel("Monday");
    await monday.waitFor();
    const firstValues = await page.evaluate("window.firstValues");
    expect(firstValues).toMatchObject({ "hours-mon": "08:00-17:00", "hours-sat": "" });
    await monday.fill("09:00-12:00, 13:00-18:00");
    await page.getByRole("button", { name: "Save business hours" }).click();
    await page.getByText("Saved.").waitFor();
    await screenshot(page, "dashboard-business-hours.png");
    expect((await tenant.owner.get("/api/settings/business-hours")).body.business_hours.mon).toEqual([
      { start: "09:00", end: "12:00" },
      { start: "13:00", end: "18:00" },
    ]);
    expect(await criticalViolations(page)).toEqual([]);
  });

  /** Follows a link of the main navigation and waits for the page's heading. */
  async function open(title: string) {
    const menu = page.getByRole("button", { name: "Menu" });
    if (await menu.isVisible()) await menu.click();
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: title, exact: true }).click();
    await page.getByRole("heading", { level: 1, name: title }).waitFor();
  }

  it("calls: the list, a call's transcript and its recording player", async () => {
    await open("Calls");
    await page.getByRole("cell", { name: "Chart Customer", exact: true }).waitFor();
    await page.getByRole("button", { name: "Open the call of Chart Customer" }).click();
    await page.getByText("My kitchen tap is leaking.").waitFor();
    await page.getByText("A plumber can come tomorrow morning.").waitFor();
    const player = page.locator("audio");
    await player.waitFor();
    const source = await player.getAttribute("src");
    expect(source).toMatch(/\/files\//);
    expect(await page.evaluate(async (url) => (await fetch(url as string)).status, source)).toBe(200);
    expect(await criticalViolations(page)).toEqual([]);
    await screenshot(page, "dashboard-calls.png");
    await page.getByRole("button", { name: "Close call" }).click();
  });

  it("contacts and leads", async () => {
    await open("Contacts and leads");
    await page.getByRole("cell", { name: "Chart Customer" }).waitFor();
    await page.getByRole("table", { name: "Leads" }).getByRole("cell", { name: "Lena Lead" }).waitFor();
    await page.getByLabel("Search contacts").fill("Booked");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.getByRole("table", { name: "Contacts" }).getByRole("cell", { name: "Booked Customer" }).waitFor();
    await expect
      .poll(() => page.getByRole("table", { name: "Contacts" }).getByRole("cell", { name: "Chart Customer" }).count())
      .toBe(0);
    expect(await criticalViolations(page)).toEqual([]);
  });

  it("service requests and their quotes", async () => {
    await open("Service requests");
    const requests = page.getByRole("table", { name: "Service requests" });
    await requests.getByRole("cell", { name: "Leaking tap" }).waitFor();
    expect(await requests.getByRole("row").count()).toBe(4);
    await page.getByRole("table", { name: "Pending quotes" }).getByRole("cell", { name: "Leaking tap" }).waitFor();
    expect(await requests.getByText(/\$250 \(pending\)/).count()).toBe(1);
    await page.getByLabel("Status").selectOption("completed");
    await page.getByText("No completed service requests.").waitFor();
    expect(await criticalViolations(page)).toEqual([]);
  });

  it("the schedule: a day's appointments by technician, and who is on call", async () => {
    await open("Schedule");
    await page.getByLabel("Day").fill(appointmentDay);
    await page.getByRole("heading", { level: 3, name: "Alice Tech" }).waitFor();
    await page.getByRole("cell", { name: "Booked Customer" }).waitFor();
    await page
      .getByRole("table", { name: "Technicians on call now" })
      .getByRole("cell", { name: "Alice Tech" })
      .waitFor();
    await page.getByRole("table", { name: "On-call schedule" }).getByRole("cell", { name: "Alice Tech" }).waitFor();
    expect(await criticalViolations(page)).toEqual([]);
  });

  it("campaigns with their progress", async () => {
    await open("Campaigns");
    await page.getByRole("cell", { name: "Spring reminders" }).waitFor();
    await page.getByText("0 of 1 contacts (0 %)").waitFor();
    expect(await page.getByRole("progressbar", { name: "Progress of Spring reminders" }).count()).toBe(1);
    expect(await criticalViolations(page)).toEqual([]);
  });

  it("knowledge base: uploads a document and shows it ready", async () => {
    await open("Knowledge base");
    await page.getByText("No sources yet: upload a document.").waitFor();
    await page.getByLabel("File").setInputFiles({
      name: "prices.txt",
      mimeType: "text/plain",
      buffer: Buffer.from("Prices\n\nA tap repair costs 120 dollars, call-out included.\n"),
    });
    await page.getByLabel("Title (optional)").fill("Price list");
    await page.getByRole("button", { name: "Upload" }).click();
    await page
      .getByRole("status")
      .getByText(/^Uploaded prices\.txt/)
      .waitFor();
    await page.getByRole("cell", { name: "Price list" }).waitFor();
    // The list is read again while the source is processed.
    await page.getByRole("cell", { name: "ready", exact: true }).waitFor({ timeout: 60_000 });
    const sources = (await tenant.owner.get("/api/knowledge-base/sources")).body.items;
    expect(sources.map((source: { title: string; status: string }) => [source.title, source.status])).toEqual([
      ["Price list", "ready"],
    ]);
    expect(await criticalViolations(page)).toEqual([]);
  });

  it("webhooks: the endpoint, its delivery log, and a delivery resent", async () => {
    await eventually(async () => (hookRequests.length >= 3 ? true : undefined), 30_000, 200);
    await open("Webhooks");
    await page.getByRole("cell", { name: hooksUrl, exact: true }).waitFor();
    await page.getByRole("button", { name: `Deliveries to ${hooksUrl}` }).click();
    const log = page.getByRole("table", { name: "Deliveries" });
    await log.getByRole("cell", { name: "succeeded" }).first().waitFor();
    expect(await log.getByRole("cell", { name: "contact.created", exact: true }).count()).toBe(3);
    const before = hookRequests.length;
    await page
      .getByRole("button", { name: /^Resend contact\.created/ })
      .first()
      .click();
    await page
      .getByRole("status")
      .getByText(/^Resent contact\.created/)
      .waitFor();
    await eventually(async () => (hookRequests.length > before ? true : undefined), 30_000, 200);
    expect(await criticalViolations(page)).toEqual([]);
  });

  it("on a phone (375 px wide): the navigation folds behind Menu, and no page scrolls sideways", async () => {
    await page.setViewportSize({ width: 375, height: 812 });
    try {
      for (const title of [
        "Overview",
        "Calls",
        "Contacts and leads",
        "Service requests",
        "Schedule",
        "Campaigns",
        "Knowledge base",
        "Webhooks",
        "API keys",
        "Users",
        "Business hours",
      ]) {
        expect(await page.getByRole("navigation", { name: "Main" }).getByRole("link").first().isVisible()).toBe(false);
        await open(title);
        await page.getByRole("status").first().waitFor({ state: "detached" });
        const overflow = await page.evaluate(() => {
          const root = (
            globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }
          ).document.documentElement;
          return root.scrollWidth - root.clientWidth;
        });
        expect(overflow, `${title} scrolls sideways`).toBeLessThanOrEqual(0);
      }
      expect(await criticalViolations(page)).toEqual([]);
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it("logged no console error on any page", () => {
    expect(browser.consoleErrors).toEqual([]);
  });

  // After the console check: Chromium logs every 4xx answer as a failed resource load.
  it("shows the API's error for a bad interval and changes nothing", async () => {
    const monday = page.getByLabel("Monday");
    await monday.fill("25:00-26:00");
    // Saved from the keyboard: Enter in a day's field submits the form.
    await monday.press("Enter");
    await page.getByRole("alert").waitFor();
    await screenshot(page, "dashboard-business-hours-error.png");
    expect(await page.getByRole("alert").textContent()).toMatch(/mon/);
    expect((await tenant.owner.get("/api/settings/business-hours")).body.business_hours.mon).toHaveLength(2);
  });

  it("shows the API's refusal of an unsupported upload and adds no source", async () => {
    await open("Knowledge base");
    await page.getByLabel("File").setInputFiles({
      name: "tool.exe",
      mimeType: "application/x-msdownload",
      buffer: Buffer.from("MZ not a document"),
    });
    await page.getByRole("button", { name: "Upload" }).click();
    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/^Unsupported file type application\/x-msdownload/);
    expect((await tenant.owner.get("/api/knowledge-base/sources")).body.total).toBe(1);
  });
});
