import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import openapiTS, { astToString } from "openapi-typescript";
import { describe, expect, inject, it } from "vitest";
import { expectStatus, tenantFactory } from "@voiceops/platform/testing";

// A client generated from the served document with openapi-typescript types real responses
// exactly: a small program holding them as typed constants compiles under `strict`, reads
// `created.id` as a string without a cast, and fails to compile where a field can be null.

const baseUrl = inject("baseUrl");
const tenant = tenantFactory();
const require = createRequire(import.meta.url);

type Body<
  P extends string,
  M extends string,
  S extends number,
> = `paths["${P}"]["${M}"]["responses"][${S}]["content"]["application/json"]`;
const typed = <P extends string, M extends string, S extends number>(path: P, method: M, status: S): Body<P, M, S> =>
  `paths["${path}"]["${method}"]["responses"][${status}]["content"]["application/json"]`;

async function tsc(dir: string): Promise<string> {
  const compiler = join(dirname(require.resolve("typescript/package.json")), "bin", "tsc");
  return promisify(execFile)(process.execPath, [compiler, "-p", join(dir, "tsconfig.json")], {
    cwd: dir,
    maxBuffer: 16 * 1024 * 1024,
  }).then(
    () => "",
    (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ""}${error.stderr ?? ""}`,
  );
}

describe("a TypeScript client generated from /openapi.json", () => {
  it("compiles a strict program over real responses, using created.id without a cast", async () => {
    const doc = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as Record<string, unknown>;
    const types = astToString(await openapiTS(doc as never));

    const { owner } = await tenant();
    const created = expectStatus(
      await owner.post("/api/contacts", { name: "Jane Doe", phone_number: "(555) 010-2001" }),
      201,
    );
    const listed = expectStatus(await owner.get("/api/contacts"), 200);
    const lead = expectStatus(await owner.post("/api/leads", { contact_id: created.id, status: "new" }), 201);
    const request = expectStatus(
      await owner.post("/api/service-requests", { description: "Leaking tap", contact_id: created.id }),
      201,
    );
    const emergency = expectStatus(
      await owner.post(`/api/service-requests/${request.id}/emergency?emergency_type=water`),
      200,
    );
    const technician = expectStatus(await owner.post("/api/technicians", { name: "Sam", skills: ["plumbing"] }), 200);
    const technicians = expectStatus(await owner.get("/api/technicians"), 200);
    const conversation = expectStatus(
      await owner.post("/api/conversations", { phone_number: "(555) 010-2001", channel: "phone" }),
      201,
    );
    const dashboard = expectStatus(await owner.get("/api/statistics/dashboard"), 200);
    const notFound = expectStatus(await owner.get(`/api/contacts/${request.id}`), 404);
    const health = await (await fetch(`${baseUrl}/health/live`)).json();

    const constants: [string, string, unknown][] = [
      ["created", typed("/api/contacts", "post", 201), created],
      ["listed", typed("/api/contacts", "get", 200), listed],
      ["lead", typed("/api/leads", "post", 201), lead],
      ["request", typed("/api/service-requests", "post", 201), request],
      ["emergency", typed("/api/service-requests/{service_request_id}/emergency", "post", 200), emergency],
      ["technician", typed("/api/technicians", "post", 200), technician],
      ["technicians", typed("/api/technicians", "get", 200), technicians],
      ["conversation", typed("/api/conversations", "post", 201), conversation],
      ["dashboard", typed("/api/statistics/dashboard", "get", 200), dashboard],
      ["notFound", typed("/api/contacts/{contact_id}", "get", 404), notFound],
      ["health", typed("/health/live", "get", 200), health],
    ];
    const responses = [
      'import type { paths } from "./api.js";',
      ...constants.map(([name, type, value]) => `export const ${name}: ${type} = ${JSON.stringify(value, null, 2)};`),
    ].join("\n\n");
    const program = `
import type { components } from "./api.js";
import { conversation, created, dashboard, emergency, lead, listed, notFound, request, technician, technicians } from "./responses.js";

// Required and never null: used as they are, without casts or checks.
export const ids: string[] = [created.id, lead.id, lead.contact.id, request.id, technician.id, conversation.id, ...listed.items.map((c) => c.id)];
export const createdAt: string = created.created_at;
export const total: number = listed.total + technicians.total + dashboard.contacts_total;
export const status: "prospect" | "lead" | "customer" | "inactive" = created.status;
export const detail: string = notFound.detail;
// May be null, and typed so.
export const emergencyType: components["schemas"]["ServiceRequest"]["emergency_type"] = request.emergency_type;
export const kind: "gas" | "water" | "electrical" | "hvac" | "structural" | "other" | null = emergency.emergency_type;
export const email: string | null = created.email;
export const quote = request.quote === null ? "no quote" : request.quote.quote_amount_cents;
`;
    // A field that can be null does not compile where a value is required.
    const wrong = `
import { created } from "./responses.js";
export const email: string = created.email;
`;

    const dir = await mkdtemp(join(tmpdir(), "openapi-client-"));
    try {
      const tsconfig = {
        compilerOptions: {
          strict: true,
          noUncheckedIndexedAccess: true,
          exactOptionalPropertyTypes: true,
          noEmit: true,
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          skipLibCheck: false,
          types: [],
        },
        files: ["main.ts"],
      };
      await writeFile(join(dir, "api.ts"), types);
      await writeFile(join(dir, "responses.ts"), responses);
      await writeFile(join(dir, "main.ts"), program);
      await writeFile(join(dir, "tsconfig.json"), JSON.stringify(tsconfig));
      expect(await tsc(dir)).toBe("");

      await writeFile(join(dir, "main.ts"), wrong);
      expect(await tsc(dir)).toMatch(/Type 'string \| null' is not assignable to type 'string'/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
