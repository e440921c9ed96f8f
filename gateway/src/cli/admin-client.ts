import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, envInt, envOptional, envString } from "@voiceops/platform";

// What the operator CLIs (npm run apikey, npm run user) share: failing with a message, and
// calling the running system's admin API with its token.

export function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

function adminBaseUrl(env: Record<string, string | undefined>): string {
  try {
    return (
      envOptional("ADMIN_URL", env) ??
      `http://${envString("ADMIN_HOST", "127.0.0.1", env)}:${envInt("ADMIN_PORT", 8081, { min: 1, max: 65535 }, env)}`
    );
  } catch (error) {
    return fail(error instanceof ConfigError ? error.message : String(error));
  }
}

function adminToken(env: Record<string, string | undefined>): string {
  const given = envOptional("ADMIN_TOKEN", env);
  if (given) return given;
  try {
    return readFileSync(join(envString("DATA_DIR", "./.data", env), "admin-token"), "utf8").trim();
  } catch {
    return fail(
      "No admin token: set ADMIN_TOKEN, or start the embedded system first (npm start) so that it writes one under DATA_DIR.",
    );
  }
}

type AdminCall = (method: string, path: string, body?: unknown) => Promise<Record<string, unknown>>;

/** A caller of the admin API (ADMIN_URL or ADMIN_HOST/ADMIN_PORT, ADMIN_TOKEN or the embedded one) that fails on any error. */
export function adminCaller(env: Record<string, string | undefined>): AdminCall {
  const url = adminBaseUrl(env);
  const token = adminToken(env);
  return async (method, path, body) => {
    let response: Response;
    try {
      response = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch {
      return fail(`Cannot reach the admin API at ${url}: is the system running (npm start)?`);
    }
    const text = await response.text();
    if (!response.ok) fail(`${method} ${path} answered ${response.status}: ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
}

/** The organization of this name, made when there is none; its id. */
export async function organizationNamed(
  call: AdminCall,
  name: string,
  settings: { timezone?: string; country?: string } = {},
): Promise<string> {
  const found = await call("GET", `/admin/organizations?name=${encodeURIComponent(name)}`);
  const existing = (found.items as { id: string; timezone: string; default_country: string }[])[0];
  if (existing) {
    const changes: Record<string, string> = {};
    if (settings.timezone && settings.timezone !== existing.timezone) changes.timezone = settings.timezone;
    if (settings.country && settings.country.toUpperCase() !== existing.default_country)
      changes.default_country = settings.country;
    if (Object.keys(changes).length > 0) await call("PATCH", `/admin/organizations/${existing.id}`, changes);
    return existing.id;
  }
  const created = await call("POST", "/admin/organizations", {
    name,
    ...(settings.timezone ? { timezone: settings.timezone } : {}),
    ...(settings.country ? { default_country: settings.country } : {}),
  });
  return String(created.id);
}
