import { parseArgs } from "node:util";
import { getCountries } from "libphonenumber-js";
import { IANAZone } from "luxon";
import { ROLES } from "@voiceops/platform";
import { adminCaller, fail, organizationNamed } from "./admin-client.js";

// npm run apikey -- --org "<name>" [--role owner|admin|member] [--timezone <IANA>] [--country <CC>]
// Talks to the running system's admin API: finds or creates the organization, then issues a
// key, and prints {"organization_id": "...", "api_key": "..."} on one line.

const usage =
  'usage: npm run apikey -- --org "<name>" [--role owner|admin|member] [--timezone <IANA>] [--country <CC>] [--name <key name>]';

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
if (!(ROLES as readonly string[]).includes(values.role))
  fail(`invalid --role "${values.role}": must be ${ROLES.join(", ")}`);
if (values.timezone !== undefined && !IANAZone.isValidZone(values.timezone))
  fail(`invalid --timezone "${values.timezone}": not an IANA time zone name (e.g. America/Chicago)`);
if (values.country !== undefined && !(getCountries() as string[]).includes(values.country.toUpperCase())) {
  fail(`invalid --country "${values.country}": not an ISO 3166 alpha-2 country code (e.g. US)`);
}
if (values.name !== undefined && values.name.length > 100) fail("invalid --name: at most 100 characters");

const call = adminCaller(process.env);
const orgId = await organizationNamed(call, values.org, { timezone: values.timezone, country: values.country });
const key = await call("POST", `/admin/organizations/${orgId}/api-keys`, {
  role: values.role,
  ...(values.name ? { name: values.name } : {}),
});
process.stdout.write(`${JSON.stringify({ organization_id: orgId, api_key: key.key })}\n`);
