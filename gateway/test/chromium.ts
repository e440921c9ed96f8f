import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";

// Debian's Chromium through playwright-core (nothing is downloaded), for the browser tests and
// the dashboard benchmark: headless, in a profile of its own that is removed on close.

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const chromiumAvailable = existsSync(CHROMIUM);

export interface Browser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

export async function launchChromium(viewport = { width: 1280, height: 900 }): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), "dashboard-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
    viewport,
    timezoneId: "UTC",
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Opens a set-up link and sets the user's password: the browser is then signed in. */
export async function setPassword(page: Page, setupUrl: string, password: string): Promise<void> {
  await page.goto(setupUrl);
  await page.getByLabel("Password (at least 12 characters)").fill(password);
  await page.getByLabel("The same password again").fill(password);
  await page.getByRole("button", { name: "Set password and sign in" }).click();
  await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
}
