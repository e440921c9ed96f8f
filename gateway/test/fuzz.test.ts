import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { responseChecker, tenantFactory, type ResponseChecker, type Tenant } from "@voiceops/platform/testing";

// Hostile input across every operation of the served OpenAPI document: one bad value at a time
// in each path parameter, query parameter and body field, and bad bodies as a whole. Whatever
// is sent, the answer is a 4xx (or a success) with a JSON body, never a 5xx, and the document
// declares it: its status and its body's shape.

const baseUrl = inject("baseUrl");
const tenant = tenantFactory();

type Schema = Record<string, any>;
interface Operation {
  verb: string;
  path: string;
  parameters: { name: string; in: "path" | "query"; schema: Schema }[];
  body: Schema | undefined;
}

/** Values that broke or could break something: NUL, bad encodings, huge and odd numbers, dates out of range. */
const HOSTILE_VALUES: unknown[] = [
  "\u0000",
  "a\u0000b",
  "%ZZ",
  "\uD800",
  "'; DROP TABLE contacts; --",
  "\\",
  "%_%",
  "9".repeat(400),
  "x".repeat(20_000),
  "-1",
  "1e309",
  "NaN",
  "0000-01-01T00:00:00Z",
  "0001-01-01T00:00:00+01:00",
  "9999-12-31T23:59:59-01:00",
  "2026-02-30T10:00:00Z",
  "+275760-09-13T00:00:00Z",
  " ",
  "",
  -1,
  0,
  1.5,
  2 ** 31,
  2 ** 53 + 2,
  -(2 ** 63),
  1e308,
  true,
  null,
  [],
  ["\u0000"],
  {},
  { "\u0000": "\u0000" },
];

/** Raw query-string and path texts (already encoded, or deliberately badly encoded). */
const RAW_TEXTS = ["%00", "a%00b", "%ZZ", "%C3%28", "%E0%A4%A", "%25", "..%2F..%2Fetc", "%F0%9F%99%82"];

function deep(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

function resolve(doc: Schema, schema: Schema | undefined): Schema {
  let current = schema ?? {};
  for (let i = 0; i < 10 && current.$ref; i++)
    current = doc.components.schemas[String(current.$ref).split("/").pop() as string] ?? {};
  if (Array.isArray(current.anyOf)) current = resolve(doc, current.anyOf.find((s: Schema) => s.type !== "null") ?? {});
  if (Array.isArray(current.oneOf)) current = resolve(doc, current.oneOf.find((s: Schema) => s.type !== "null") ?? {});
  return current;
}

function typeOf(schema: Schema): string {
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== "null") : schema.type;
  return String(type ?? "any");
}

/** A value the schema accepts (as far as a generic generator can tell). */
function sample(doc: Schema, raw: Schema | undefined, depth = 0): unknown {
  const schema = resolve(doc, raw);
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum.find((v: unknown) => v !== null);
  switch (typeOf(schema)) {
    case "string":
      if (schema.format === "uuid") return randomUUID();
      if (schema.format === "date-time") return "2030-01-02T03:04:05Z";
      if (schema.format === "email") return "fuzz@example.com";
      return "Fuzz value";
    case "integer":
    case "number":
      return Math.max(Number(schema.minimum ?? 1), 1);
    case "boolean":
      return true;
    case "array":
      return schema.minItems ? [sample(doc, schema.items, depth + 1)] : [];
    case "object": {
      if (depth > 3 || !schema.properties) return {};
      const out: Record<string, unknown> = {};
      for (const name of schema.required ?? []) out[name] = sample(doc, schema.properties[name], depth + 1);
      return out;
    }
    default:
      return "x";
  }
}

function operationsOf(doc: Schema): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Schema>>)) {
    for (const [verb, op] of Object.entries(item)) {
      if (!["get", "post", "put", "patch", "delete"].includes(verb)) continue;
      out.push({
        verb,
        path,
        parameters: (op.parameters ?? []).map((p: Schema) => ({ name: p.name, in: p.in, schema: p.schema })),
        body: op.requestBody?.content?.["application/json"]?.schema,
      });
    }
  }
  return out;
}

function text(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** Percent-encoded text of a value; a lone surrogate cannot be encoded and is sent as its UTF-8 bytes. */
function encoded(value: unknown): string {
  try {
    return encodeURIComponent(text(value));
  } catch {
    return "%ED%A0%80";
  }
}

interface Probe {
  what: string;
  method: string;
  url: string;
  body?: string;
  headers?: Record<string, string>;
}

/** Every probe for one operation: each parameter and body field bad in turn, then bad bodies. */
function probesOf(doc: Schema, op: Operation, key: string): Probe[] {
  const probes: Probe[] = [];
  const pathValues = Object.fromEntries(
    op.parameters.filter((p) => p.in === "path").map((p) => [p.name, encoded(sample(doc, p.schema))]),
  );
  const validBody = op.body ? sample(doc, op.body) : undefined;
  const build = (path: Record<string, string>, query: string, body: unknown, raw?: string): Probe => {
    const url =
      op.path.replace(/\{([a-z_0-9]+)\}/g, (_m, name: string) => path[name] ?? "x") + (query ? `?${query}` : "");
    const payload = raw ?? (body === undefined ? undefined : JSON.stringify(body));
    return {
      what: "",
      method: op.verb.toUpperCase(),
      url,
      body: payload,
      headers: { "x-api-key": key, ...(payload === undefined ? {} : { "content-type": "application/json" }) },
    };
  };
  for (const param of op.parameters) {
    for (const value of [...HOSTILE_VALUES.map(encoded), ...RAW_TEXTS]) {
      if (param.in === "path")
        probes.push({
          ...build({ ...pathValues, [param.name]: value }, "", validBody),
          what: `path ${param.name}=${value.slice(0, 40)}`,
        });
      else
        probes.push({
          ...build(pathValues, `${param.name}=${value}`, validBody),
          what: `query ${param.name}=${value.slice(0, 40)}`,
        });
    }
    if (param.in === "query")
      probes.push({
        ...build(pathValues, `${param.name}=1&${param.name}=%00&${param.name}[x]=2`, validBody),
        what: `query ${param.name} repeated`,
      });
  }
  if (op.body) {
    const schema = resolve(doc, op.body);
    for (const name of Object.keys(schema.properties ?? {})) {
      for (const value of HOSTILE_VALUES) {
        const body = { ...(validBody as Record<string, unknown>), [name]: value };
        probes.push({ ...build(pathValues, "", body), what: `body ${name}=${text(value).slice(0, 40)}` });
      }
      const itemSchema = resolve(doc, schema.properties[name]);
      if (typeOf(itemSchema) === "object" || typeOf(itemSchema) === "array") {
        probes.push({
          ...build(pathValues, "", { ...(validBody as object), [name]: deep(200) }),
          what: `body ${name} nested 200 deep`,
        });
      }
    }
    for (const [what, raw] of [
      ["body nested 5000 deep", `${'{"a":['.repeat(2_500)}1${"]}".repeat(2_500)}`],
      ["body array", "[]"],
      ["body string", '"\\u0000"'],
      ["body not JSON", "{"],
      ["body NUL key", '{"\\u0000": 1}'],
    ] as const) {
      probes.push({ ...build(pathValues, "", undefined, raw), what });
    }
  }
  return probes;
}

async function send(
  probe: Probe,
  checker: ResponseChecker,
): Promise<{ status: number; json: boolean; problem: string | undefined }> {
  const response = await fetch(`${baseUrl}${probe.url}`, {
    method: probe.method,
    headers: probe.headers,
    body: probe.body,
  });
  const raw = await response.text();
  let body: unknown;
  try {
    if (raw !== "") body = JSON.parse(raw);
  } catch {
    return { status: response.status, json: false, problem: undefined };
  }
  const problem = checker.problem(probe.method, probe.url, response.status, body, raw !== "");
  return { status: response.status, json: raw === "" ? response.status === 204 : true, problem };
}

describe("hostile input on every operation of /openapi.json", () => {
  let owner: Tenant;
  beforeAll(async () => {
    owner = await tenant();
  });

  it("never answers 5xx, always in JSON, always as the document declares", async () => {
    const checker = await responseChecker(baseUrl);
    const doc = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as Schema;
    const operations = operationsOf(doc).filter(
      (op) => op.path.startsWith("/api/") && !op.path.startsWith("/api/health"),
    );
    expect(operations.length).toBeGreaterThan(10);
    const probes = operations.flatMap((op) => probesOf(doc, op, owner.owner.apiKey as string));
    // Bounded: a fixed share of the probes, spread over every operation.
    const limit = 6_000;
    const chosen =
      probes.length <= limit ? probes : probes.filter((_p, i) => i % Math.ceil(probes.length / limit) === 0);
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < chosen.length) {
          const probe = chosen[next++] as Probe;
          const { status, json, problem } = await send(probe, checker);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          if (status >= 500 || !json)
            failures.push(
              `${status}${json ? "" : " (not JSON)"} ${probe.method} ${probe.url.slice(0, 80)} [${probe.what}]`,
            );
          else if (problem)
            failures.push(`${probe.method} ${probe.url.slice(0, 80)} [${probe.what}]: ${problem.slice(0, 600)}`);
        }
      }),
    );
    process.stdout.write(
      `fuzz: ${chosen.length} requests over ${operations.length} operations; statuses ${JSON.stringify(Object.fromEntries(statuses))}\n`,
    );
    if (failures.length > 0) process.stdout.write(`fuzz failures:\n${failures.join("\n")}\n`);
    expect(failures.slice(0, 50), `${failures.length} bad answers`).toEqual([]);
    // Thousands of requests: a loaded machine may need far longer than the default bound.
  }, 900_000);
});
