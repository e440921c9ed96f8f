import { parseArgs } from "node:util";
import { ROLES } from "@voiceops/platform";
import { adminCaller, fail, organizationNamed } from "./admin-client.js";

// npm run user -- --org "<name>" --email <e> [--role owner|admin|member] [--name "<name>"]
// Talks to the running system's admin API: finds or creates the organization, creates the
// dashboard user and prints the one-time set-up link (valid 72 h) where the user sets a password.

const usage = 'usage: npm run user -- --org "<name>" --email <email> [--role owner|admin|member] [--name "<name>"]';

function parsedArguments() {
  try {
    return parseArgs({
      options: {
        org: { type: "string" },
        email: { type: "string" },
        role: { type: "string", default: "owner" },
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
if (!values.org?.trim() || !values.email?.trim()) fail(usage);
if (!(ROLES as readonly string[]).includes(values.role))
  fail(`invalid --role "${values.role}": must be ${ROLES.join(", ")}`);

const call = adminCaller(process.env);
const orgId = await organizationNamed(call, values.org);
const user = await call("POST", `/admin/organizations/${orgId}/users`, {
  email: values.email.trim(),
  role: values.role,
  ...(values.name ? { name: values.name } : {}),
});
process.stdout.write(
  `${JSON.stringify({ organization_id: orgId, user_id: user.id, email: user.email, role: user.role, setup_url: user.setup_url })}\n`,
);
process.stderr.write(`Open the set-up link within 72 hours to choose a password: ${String(user.setup_url)}\n`);
