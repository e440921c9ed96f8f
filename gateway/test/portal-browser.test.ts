import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { expectStatus, testAdmin, type Tenant } from "@voiceops/platform/testing";
import {
  chromiumAvailable,
  criticalViolations,
  inCi,
  launchBrowser,
  screenshot,
  type Browser,
} from "./browser-helpers.js";
import { mint, openTenant, requestWithQuote } from "./portal-helpers.js";

// The customer portal in a real browser: a contact's link shows the business, the open
// requests with their quotes and the appointments; a quote approved by mouse and one by
// keyboard alone, a slot booked and moved, each checked through the REST API; readable on a
// phone; no console errors, no critical axe-core violation; a revoked link is a bare 404 page.

const baseUrl = inject("baseUrl");
const admin = testAdmin();
const DAY = 24 * 60 * 60 * 1000;

/** YYYY-MM-DD of a moment in this machine's time zone, which the browser shares. */
const localDay = (moment: Date) =>
  `${moment.getFullYear()}-${String(moment.getMonth() + 1).padStart(2, "0")}-${String(moment.getDate()).padStart(2, "0")}`;

describe.skipIf(!chromiumAvailable && !inCi)("the customer portal in Chromium", () => {
  let browser: Browser;
  let page: Page;
  let tenant: Tenant;
  let businessName: string;
  let contactId: string;
  const requests: Record<string, string> = {};
  let url: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    page = browser.page;
    tenant = await openTenant(baseUrl, admin);
    businessName = expectStatus(await tenant.owner.get("/api/me"), 200).organization.name;
    contactId = expectStatus(await tenant.owner.post("/api/contacts", { name: "Browser Customer" }), 201).id;
    for (const description of ["Leaking tap", "No hot water", "Dripping shower"])
      requests[description] = await requestWithQuote(tenant, contactId, description);
    expectStatus(
      await tenant.owner.post("/api/scheduling/types", { name: "Visit", duration_minutes: 60, min_notice_minutes: 0 }),
      201,
    );
    url = `${baseUrl}/portal/${await mint(tenant, contactId)}`;
  });
  afterAll(async () => {
    await browser?.close();
  });

  const quoteStatus = async (description: string) =>
    (await tenant.owner.get(`/api/service-requests/${requests[description]}`)).body.quote.status;
  const announced = (text: string | RegExp) => page.getByRole("status").filter({ hasText: text }).waitFor();

  it("opens the contact's link: the business, the open requests with their quotes, no appointments yet", async () => {
    const response = await page.goto(url);
    expect(response?.status()).toBe(200);
    await page.getByRole("heading", { level: 1, name: businessName }).waitFor();
    for (const description of Object.keys(requests))
      await page.getByRole("heading", { level: 3, name: description }).waitFor();
    expect(await page.getByRole("button", { name: /^Approve quote/ }).count()).toBe(3);
    await page.getByText("You have no upcoming appointments.").waitFor();
    // Today's free times, or (late in the day, past business hours) the word that there are none.
    await page.getByRole("radio").first().or(page.getByText("No free times on this day.")).waitFor();
    expect(await criticalViolations(page)).toEqual([]);
  });

  it("approves a quote: its status becomes approved", async () => {
    await page.getByRole("button", { name: "Approve quote for Leaking tap" }).click();
    await announced("You approved the quote for Leaking tap.");
    expect(await quoteStatus("Leaking tap")).toBe("approved");
    expect(await page.getByRole("button", { name: "Approve quote for Leaking tap" }).count()).toBe(0);
    expect(await quoteStatus("No hot water")).toBe("pending");
  });

  it("approves a quote with the keyboard alone", async () => {
    const target = "Approve quote for No hot water";
    await page.keyboard.press("Tab");
    for (let presses = 0; presses < 40; presses++) {
      const focused = await page.evaluate(
        () =>
          (globalThis as unknown as { document: { activeElement: { textContent: string } | null } }).document
            .activeElement?.textContent,
      );
      if (focused === target) break;
      await page.keyboard.press("Tab");
    }
    await page.keyboard.press("Enter");
    await announced("You approved the quote for No hot water.");
    expect(await quoteStatus("No hot water")).toBe("approved");
  });

  it("books a slot of tomorrow: the contact has the appointment", async () => {
    const booking = page.locator("section", { has: page.getByRole("heading", { name: "Book a visit" }) });
    await booking.getByLabel("Day").fill(localDay(new Date(Date.now() + DAY)));
    // Times are written in the browser's time zone: 10:00 there whatever the zone.
    const ten = booking.locator('input[type="radio"][value*="T10:00"]');
    await ten.waitFor();
    const start = await ten.inputValue();
    await ten.check();
    await booking.getByRole("button", { name: "Book this time" }).click();
    await announced(/^Booked: Visit on /);
    const appointments = (await tenant.owner.get(`/api/scheduling/appointments?contact_id=${contactId}`)).body.items;
    expect(appointments).toHaveLength(1);
    expect(Date.parse(appointments[0].start_at)).toBe(Date.parse(start));
    // The keyboard's place moves to the appointments, where the new one is listed.
    await page.getByRole("button", { name: /^Change time of Visit/ }).waitFor();
    expect(
      await page.evaluate(
        () => (globalThis as unknown as { document: { activeElement: { id: string } } }).document.activeElement.id,
      ),
    ).toBe("appointments-heading");
  });

  it("changes the appointment to another slot", async () => {
    await page.getByRole("button", { name: /^Change time of Visit/ }).click();
    const appointment = page.locator("li", { has: page.getByRole("button", { name: /^Keep this time/ }) });
    const two = appointment.locator('input[type="radio"][value*="T14:00"]');
    await two.waitFor();
    const start = await two.inputValue();
    await two.check();
    await appointment.getByRole("button", { name: "Move to this time" }).click();
    await announced(/^Moved: Visit is now on /);
    const active = (await tenant.owner.get(`/api/scheduling/appointments?contact_id=${contactId}`)).body.items.filter(
      (a: { status: string }) => a.status === "scheduled" || a.status === "confirmed",
    );
    expect(active.map((a: { start_at: string }) => Date.parse(a.start_at))).toEqual([Date.parse(start)]);
    // The booking form's free times follow: the old time is free again, the new one taken.
    const booking = page.locator("section", { has: page.getByRole("heading", { name: "Book a visit" }) });
    await booking.locator('input[type="radio"][value*="T10:00"]').waitFor();
    expect(await booking.locator('input[type="radio"][value*="T14:00"]').count()).toBe(0);
    expect(await criticalViolations(page)).toEqual([]);
    await screenshot(page, "portal.png");
  });

  it("is readable on a phone: nothing wider than the screen", async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    await page.reload();
    await page.getByRole("heading", { level: 1, name: businessName }).waitFor();
    await page.getByRole("button", { name: /^Change time of Visit/ }).waitFor();
    const overflow = await page.evaluate(() => {
      const root = (
        globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }
      ).document.documentElement;
      return root.scrollWidth - root.clientWidth;
    });
    expect(overflow).toBeLessThanOrEqual(0);
    expect(await criticalViolations(page)).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it("logged no console error", () => {
    expect(browser.consoleErrors).toEqual([]);
  });

  // After the console check: Chromium logs the 404 answer as a failed resource load.
  it("shows a revoked link as a bare 404 page", async () => {
    expect((await tenant.owner.delete(`/api/contacts/${contactId}/portal-token`)).status).toBe(204);
    const response = await page.goto(url);
    expect(response?.status()).toBe(404);
    await page.getByRole("heading", { level: 1, name: "This link is not valid" }).waitFor();
    const html = await page.content();
    for (const shown of [businessName, "Browser Customer", "Leaking tap", "Visit"]) expect(html).not.toContain(shown);
    expect(await criticalViolations(page)).toEqual([]);
  });
});
