import { create, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { FieldMaskSchema } from "@bufbuild/protobuf/wkt";
import { applyDefaults, validateMessage, type Violation } from "@voiceops/platform";
import { parseSingular, readMessage } from "./json-codec.js";
import type { Route } from "./routes.js";

type AnyMessage = Record<string, unknown>;

/** A FastAPI-style validation entry: where, what and why. */
export interface ValidationEntry {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

export interface HttpInput {
  params: Record<string, string>;
  query: Record<string, unknown>;
  /** Parsed JSON body; undefined when the request had none. */
  body: unknown;
}

/** Places a request-message field path in the HTTP request: path, query or body. */
export function locate(route: Route, fieldPath: string): (string | number)[] {
  const parts: (string | number)[] = fieldPath === "" ? [] : fieldPath.split(".").map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  const head = parts[0];
  if (head === undefined) return [route.body ? "body" : "query"];
  if (route.pathFields.some((f) => f.name === head)) return ["path", ...parts];
  if (route.body === "*") return ["body", ...parts];
  if (route.body && route.body.name === head) return ["body", ...parts.slice(1)];
  return ["query", ...parts];
}

function entry(route: Route, v: Violation): ValidationEntry {
  const out: ValidationEntry = { loc: locate(route, v.field), msg: v.message, type: v.type };
  if (v.input !== undefined) out.input = v.input;
  if (v.context !== undefined) out.ctx = v.context;
  return out;
}

export function entriesOf(route: Route, violations: Violation[]): ValidationEntry[] {
  return violations.map((v) => entry(route, v));
}

function readQueryField(field: DescField, raw: unknown, message: AnyMessage, out: Violation[]): void {
  const values = Array.isArray(raw) ? raw : [raw];
  if (field.fieldKind === "list") {
    const items: unknown[] = [];
    for (const [index, text] of values.flatMap((v) => String(v).split(",")).entries()) {
      const parsed = parseSingular(`${field.name}.${index}`, field, text);
      if (parsed.ok) items.push(parsed.value);
      else out.push(parsed.violation);
    }
    message[field.localName] = items;
    return;
  }
  // As FastAPI does, a repeated query parameter for a single value takes the last one.
  const parsed = parseSingular(field.name, field, values[values.length - 1]);
  if (parsed.ok) message[field.localName] = parsed.value;
  else out.push(parsed.violation);
}

/**
 * Builds the request message of a route from path, query and body, then applies declared
 * defaults and rules. Returns the message and every validation entry (empty when valid).
 */
export function decodeRequest(route: Route, input: HttpInput): { message: AnyMessage; errors: ValidationEntry[] } {
  const violations: Violation[] = [];
  const schema = route.method.input;
  let message = create(schema) as AnyMessage;

  if (route.body === "*") {
    if (input.body === undefined) violations.push({ field: "", type: "missing", message: "Field required", input: null });
    else message = readMessage(schema, input.body, "", violations) ?? message;
  } else if (route.body) {
    const field = route.body;
    if (input.body === undefined) {
      violations.push({ field: field.name, type: "missing", message: "Field required", input: null });
    } else if (field.message) {
      const nested = readMessage(field.message, input.body, field.name, violations);
      if (nested) message[field.localName] = nested;
      if (route.updateMask && nested && typeof input.body === "object" && input.body !== null) {
        const known = new Set(field.message.fields.map((f) => f.name));
        message[route.updateMask.localName] = create(FieldMaskSchema, {
          paths: Object.keys(input.body).filter((key) => known.has(key)),
        });
      }
    }
  }

  for (const field of route.pathFields) {
    const parsed = parseSingular(field.name, field, input.params[field.name] ?? "");
    if (parsed.ok) message[field.localName] = parsed.value;
    else violations.push(parsed.violation);
  }

  for (const field of route.queryFields) {
    const raw = input.query[field.name];
    if (raw === undefined) continue;
    readQueryField(field, raw, message, violations);
  }

  // A field that failed to parse is absent from the message; report it once, not again as missing.
  const failed = new Set(violations.map((v) => v.field));
  applyDefaults(schema, message);
  const bodyMissing = route.body !== undefined && input.body === undefined;
  for (const v of validateMessage(schema, message)) {
    if (failed.has(v.field)) continue;
    // Without a body, its one "missing" entry says it all.
    if (bodyMissing && locate(route, v.field)[0] === "body") continue;
    violations.push(v);
  }
  return { message, errors: entriesOf(route, inDeclarationOrder(schema, violations)) };
}

/** Orders violations as the fields are declared, the order FastAPI reports parameters in. */
function inDeclarationOrder(schema: DescMessage, violations: Violation[]): Violation[] {
  const rank = new Map(schema.fields.map((field, index) => [field.name, index]));
  const position = (v: Violation) => rank.get(v.field.split(".")[0] ?? "") ?? -1;
  return [...violations].sort((a, b) => position(a) - position(b));
}
