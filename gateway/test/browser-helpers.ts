import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";

// The browser tests' (and the dashboard benchmark's) Chromium (Debian's, through playwright-core;
// nothing is downloaded), their axe-core scan and their screenshots. Without Chromium a browser
// test is skipped, except under CI=true, where it fails.

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const chromiumAvailable = existsSync(CHROMIUM);
export const inCi = process.env.CI === "true";
/** Headless, sandbox-free (the tests may run as root) and quiet: no network of its own. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

/** SCREENSHOT_DIR=docs/images writes the README's screenshots of the pages as the tests see them. */
const SCREENSHOT_DIR = process.env.SCREENSHOT_DIR;
export async function screenshot(page: Page, name: string): Promise<void> {
  if (SCREENSHOT_DIR) await page.screenshot({ path: join(SCREENSHOT_DIR, name), fullPage: true });
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Every console error and uncaught exception of the page so far. */
  consoleErrors: string[];
  close(): Promise<void>;
}

/** A headless Chromium with a fresh profile and one page whose console errors are collected. */
export async function launchBrowser(viewport = { width: 1280, height: 900 }): Promise<Browser> {
  if (!chromiumAvailable) throw new Error(`Chromium is missing at ${CHROMIUM} (CI=true: the browser tests must run)`);
  const profile = await mkdtemp(join(tmpdir(), "test-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport,
    // The pages show times in the organization's or the browser's zone: one zone on every machine.
    timezoneId: "UTC",
  });
  // A loaded machine may take far longer than Playwright's 30 s for a step: the bound is for a
  // failure, not a speed (the test's own timeout still ends a hung run).
  context.setDefaultTimeout(120_000);
  context.setDefaultNavigationTimeout(120_000);
  const page = context.pages()[0] ?? (await context.newPage());
  const consoleErrors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(`${message.text()} (${message.location().url})`);
  });
  page.on("pageerror", (error) => consoleErrors.push(error.message));
  return {
    context,
    page,
    consoleErrors,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** The page's critical accessibility violations by axe-core, one line each. */
export async function criticalViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    // Runs in the page (this file has no DOM types).
    const { axe, document } = globalThis as unknown as {
      axe: { run: (context: unknown, options: unknown) => Promise<{ violations: AxeViolation[] }> };
      document: unknown;
    };
    return (await axe.run(document, { resultTypes: ["violations"] })).violations;
  });
  return violations
    .filter((v) => v.impact === "critical")
    .map((v) => `${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/** Opens a set-up link and sets the user's password: the browser is then signed in. */
export async function setPassword(page: Page, setupUrl: string, password: string): Promise<void> {
  await page.goto(setupUrl);
  await page.getByLabel("Password (at least 12 characters)").fill(password);
  await page.getByLabel("The same password again").fill(password);
  await page.getByRole("button", { name: "Set password and sign in" }).click();
  await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
}
