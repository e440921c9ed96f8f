import { create, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { FieldMaskSchema } from "@bufbuild/protobuf/wkt";
import {
  applyDefaults,
  fieldRules,
  required,
  tooFewItems,
  tooShort,
  validateMessage,
  type Violation,
} from "@voiceops/platform";
import { fastApiEntry, type ValidationEntry } from "../errors/index.js";
import { parseSingular, readMessage } from "./json-codec.js";
import type { Route } from "./routes.js";

type AnyMessage = Record<string, unknown>;

interface HttpInput {
  params: Record<string, string>;
  query: Record<string, unknown>;
  /** Parsed JSON body; undefined when the request had none. */
  body: unknown;
  /** Request headers, by lower-case name. */
  headers?: Record<string, string | string[] | undefined>;
  /** The organization's default country, for phone numbers. */
  country: string;
}

/** Places a request-message field path in the HTTP request: path, query or body. */
export function locate(route: Route, fieldPath: string): (string | number)[] {
  const parts: (string | number)[] =
    fieldPath === "" ? [] : fieldPath.split(".").map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  const head = parts[0];
  if (head === undefined) return [route.body ? "body" : "query"];
  if (route.pathFields.some((f) => f.name === head)) return ["path", ...parts];
  const header = route.headerFields.find((h) => h.field.name === head);
  if (header) return ["header", header.header];
  if (route.body === "*") return ["body", ...parts];
  if (route.body && route.body.name === head) return ["body", ...parts.slice(1)];
  return ["query", ...parts];
}

export function entriesOf(route: Route, violations: Violation[]): ValidationEntry[] {
  return violations.map((v) => fastApiEntry(locate(route, v.field), v));
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
  let bodyUnusable = route.body !== undefined && input.body === undefined;

  if (route.body === "*") {
    if (input.body === undefined) violations.push(required(""));
    else {
      const read = readMessage(schema, input.body, "", violations);
      if (read) message = read;
      else bodyUnusable = true;
    }
  } else if (route.body) {
    const field = route.body;
    if (input.body === undefined) {
      violations.push(required(field.name));
    } else if (field.message) {
      const nested = readMessage(field.message, input.body, field.name, violations);
      if (nested) message[field.localName] = nested;
      else bodyUnusable = true;
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

  // A header field comes from its header only: a body ("*") naming it does not set it.
  for (const { field, header } of route.headerFields) {
    message[field.localName] = undefined;
    const raw = input.headers?.[header];
    if (raw === undefined) continue;
    readQueryField(field, raw, message, violations);
  }

  // A field that failed to parse is absent from the message; report it once, not again as missing
  // (a list whose items all failed to parse is empty, not missing).
  const failed = new Set(violations.flatMap((v) => [v.field, v.field.replace(/\.\d+$/, "")]));
  applyDefaults(schema, message);
  for (const v of validateMessage(schema, message, { country: input.country })) {
    if (failed.has(v.field)) continue;
    if (v.rule === "required" && wasSent(route, input, v.field)) {
      violations.push(emptyValue(schema, v));
      continue;
    }
    // Without a usable body, its one entry ("missing", or not an object) says it all.
    if (bodyUnusable && locate(route, v.field)[0] === "body") continue;
    violations.push(v);
  }
  return { message, errors: entriesOf(route, inDeclarationOrder(schema, violations)) };
}

/** Whether the client sent a field that the message holds as absent (an empty string or list). */
function wasSent(route: Route, input: HttpInput, fieldPath: string): boolean {
  const [head, ...rest] = fieldPath.split(".");
  if (head === undefined) return false;
  if (route.pathFields.some((f) => f.name === head)) return true;
  const header = route.headerFields.find((h) => h.field.name === head);
  if (header) return input.headers?.[header.header] !== undefined;
  const body = typeof input.body === "object" && input.body !== null ? (input.body as Record<string, unknown>) : {};
  // A null is "no value" (missing); an empty string or list was a value.
  if (route.body === "*") return body[head] !== undefined && body[head] !== null;
  if (route.body && route.body.name === head) return body[rest[0] ?? ""] !== undefined && body[rest[0] ?? ""] !== null;
  return input.query[head] !== undefined;
}

/** Proto3 cannot tell an empty string or list from an absent one; the client sent it empty. */
function emptyValue(schema: DescMessage, v: Violation): Violation {
  const [head, ...rest] = v.field.split(".");
  let field = schema.fields.find((f) => f.name === head);
  if (rest.length > 0 && field?.message) field = field.message.fields.find((f) => f.name === rest[0]);
  const rules = field ? fieldRules(field) : undefined;
  if (field?.fieldKind === "list") return tooFewItems(v.field, [], rules?.minItems ?? 1, 0);
  return tooShort(v.field, "", rules?.minLen ?? 1);
}

/** Orders violations as the fields are declared, the order FastAPI reports parameters in. */
function inDeclarationOrder(schema: DescMessage, violations: Violation[]): Violation[] {
  const rank = new Map(schema.fields.map((field, index) => [field.name, index]));
  const key = (v: Violation): [number, number] => {
    const [head = "", second = ""] = v.field.split(".");
    return [rank.get(head) ?? -1, /^\d+$/.test(second) ? Number(second) : -1];
  };
  return [...violations].sort((a, b) => {
    const [fa, ia] = key(a);
    const [fb, ib] = key(b);
    return fa - fb || ia - ib;
  });
}
