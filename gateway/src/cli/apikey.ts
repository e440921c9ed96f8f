import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { envInt, envOptional, envString } from "@voiceops/platform";

// npm run apikey -- --org "<name>" [--role owner|admin|member] [--timezone <IANA>] [--country <CC>]
// Talks to the running system's admin API: finds or creates the organization, then issues a
// key, and prints {"organization_id": "...", "api_key": "..."} on one line.

const usage = 'usage: npm run apikey -- --org "<name>" [--role owner|admin|member] [--timezone <IANA>] [--country <CC>] [--name <key name>]';

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

const { values } = parseArgs({
  options: {
    org: { type: "string" },
    role: { type: "string", default: "member" },
    timezone: { type: "string" },
    country: { type: "string" },
    name: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  process.stdout.write(`${usage}\n`);
  process.exit(0);
}
if (!values.org) fail(usage);

const adminUrl = envOptional("ADMIN_URL") ?? `http://${envString("ADMIN_HOST", "127.0.0.1")}:${envInt("ADMIN_PORT", 8081, { min: 1, max: 65535 })}`;
function adminToken(): string {
  const given = envOptional("ADMIN_TOKEN");
  if (given) return given;
  try {
    return readFileSync(join(envString("DATA_DIR", "./.data"), "admin-token"), "utf8").trim();
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
