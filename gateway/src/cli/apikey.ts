import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { getCountries } from "libphonenumber-js";
import { IANAZone } from "luxon";
import { ConfigError, envInt, envOptional, envString, ROLES } from "@voiceops/platform";

// npm run apikey -- --org "<name>" [--role owner|admin|member] [--timezone <IANA>] [--country <CC>]
// Talks to the running system's admin API: finds or creates the organization, then issues a
// key, and prints {"organization_id": "...", "api_key": "..."} on one line.

const usage = 'usage: npm run apikey -- --org "<name>" [--role owner|admin|member] [--timezone <IANA>] [--country <CC>] [--name <key name>]';

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

function parsedArguments() {
  try {
    return parseArgs({
      options: {
        org: { type: "string" },
        role: { type: "string", default: "member" },
        timezone: { type: "string" },
        country: { type: "string" },
        name: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }).values;
  } catch (error) {
    return fail(`${(error as Error).message}\n${usage}`);
  }
}
const values = parsedArguments();
if (values.help) {
  process.stdout.write(`${usage}\n`);
  process.exit(0);
}
// Everything is checked before anything is created.
if (!values.org?.trim()) fail(usage);
if (!(ROLES as readonly string[]).includes(values.role)) fail(`invalid --role "${values.role}": must be ${ROLES.join(", ")}`);
if (values.timezone !== undefined && !IANAZone.isValidZone(values.timezone)) fail(`invalid --timezone "${values.timezone}": not an IANA time zone name (e.g. America/Chicago)`);
if (values.country !== undefined && !(getCountries() as string[]).includes(values.country.toUpperCase())) {
  fail(`invalid --country "${values.country}": not an ISO 3166 alpha-2 country code (e.g. US)`);
}
if (values.name !== undefined && values.name.length > 100) fail("invalid --name: at most 100 characters");

// The environment, read once: where the admin API is and its token.
const env = process.env;
function adminBaseUrl(): string {
  try {
    return envOptional("ADMIN_URL", env) ?? `http://${envString("ADMIN_HOST", "127.0.0.1", env)}:${envInt("ADMIN_PORT", 8081, { min: 1, max: 65535 }, env)}`;
  } catch (error) {
    return fail(error instanceof ConfigError ? error.message : String(error));
  }
}
const adminUrl = adminBaseUrl();
function adminToken(): string {
  const given = envOptional("ADMIN_TOKEN", env);
  if (given) return given;
  try {
    return readFileSync(join(envString("DATA_DIR", "./.data", env), "admin-token"), "utf8").trim();
  } catch {
    return fail("No admin token: set ADMIN_TOKEN, or start the embedded system first (npm start) so that it writes one under DATA_DIR.");
  }
}
const token = adminToken();

async function call(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await fetch(`${adminUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    return fail(`Cannot reach the admin API at ${adminUrl}: is the system running (npm start)?`);
  }
  const text = await response.text();
  if (!response.ok) fail(`${method} ${path} answered ${response.status}: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

const found = await call("GET", `/admin/organizations?name=${encodeURIComponent(values.org)}`);
const existing = (found.items as { id: string; timezone: string; default_country: string }[])[0];
let orgId: string;
if (existing) {
  orgId = existing.id;
  const changes: Record<string, string> = {};
  if (values.timezone && values.timezone !== existing.timezone) changes.timezone = values.timezone;
  if (values.country && values.country.toUpperCase() !== existing.default_country) changes.default_country = values.country;
  if (Object.keys(changes).length > 0) await call("PATCH", `/admin/organizations/${orgId}`, changes);
} else {
  const created = await call("POST", "/admin/organizations", {
    name: values.org,
    ...(values.timezone ? { timezone: values.timezone } : {}),
    ...(values.country ? { default_country: values.country } : {}),
  });
  orgId = String(created.id);
}
const key = await call("POST", `/admin/organizations/${orgId}/api-keys`, { role: values.role, ...(values.name ? { name: values.name } : {}) });
process.stdout.write(`${JSON.stringify({ organization_id: orgId, api_key: key.key })}\n`);
