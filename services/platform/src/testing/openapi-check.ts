import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { inject } from "vitest";

// Every JSON response an ApiClient receives is checked against the OpenAPI document the gateway
// serves: the operation (method + path template) must exist, must declare the status, and the
// body must match the declared schema. So the document can never drift from the behaviour.

type Json = Record<string, any>;

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** The paths the document describes; anything else (signed /files URLs, /docs) is not checked. */
const DOCUMENTED = /^\/(api|health)(\/|$)/;

interface Operation {
  method: string;
  template: string;
  segments: string[];
  responses: Record<string, Json>;
}

/** Literal segments win over parameters, left to right (as the gateway matches routes). */
function specificity(segments: string[]): string {
  return segments.map((segment) => (segment.startsWith("{") ? "1" : "0")).join("");
}

function matches(operation: Operation, method: string, segments: string[]): boolean {
  return (
    operation.method === method &&
    operation.segments.length === segments.length &&
    operation.segments.every((segment, index) => segment.startsWith("{") || segment === segments[index])
  );
}

const pointer = (...parts: string[]) =>
  parts.map((part) => encodeURIComponent(part.replaceAll("~", "~0").replaceAll("/", "~1"))).join("/");

export class ResponseChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  private readonly operations: Operation[] = [];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly document: Json) {
    addFormats(this.ajv);
    this.ajv.addSchema(document, "openapi.json");
    for (const [template, item] of Object.entries(document.paths as Record<string, Json>)) {
      for (const [method, operation] of Object.entries(item)) {
        this.operations.push({
          method: method.toUpperCase(),
          template,
          segments: template.split("/"),
          responses: (operation as Json).responses ?? {},
        });
      }
    }
    this.operations.sort((a, b) => (specificity(a.segments) < specificity(b.segments) ? -1 : 1));
  }

  /** The operation a request reaches, or undefined when the gateway has none for it. */
  operation(method: string, path: string): Operation | undefined {
    // Routing is not strict: "/api/contacts/" is "/api/contacts".
    const segments = path
      .split("?")[0]!
      .replace(/(.)\/$/, "$1")
      .split("/");
    return this.operations.find((operation) => matches(operation, method.toUpperCase(), segments));
  }

  /** What is wrong with a response, or undefined when the document describes it. */
  problem(method: string, path: string, status: number, body: unknown, hasBody: boolean): string | undefined {
    const pathname = path.split("?")[0]!;
    if (!DOCUMENTED.test(pathname)) return undefined;
    const operation = this.operation(method, pathname);
    if (!operation) {
      // An unknown route: the gateway's JSON 404 for it is not an operation of the API.
      return status === 404
        ? undefined
        : `no operation ${method.toUpperCase()} ${pathname} in the document, yet it answered ${status}`;
    }
    const where = `${operation.method} ${operation.template} ${status}`;
    let response = operation.responses[String(status)];
    if (!response)
      return `${where}: the document declares no ${status} for this operation (declared: ${Object.keys(operation.responses).join(", ")})`;
    let ref = `openapi.json#/${pointer("paths", operation.template, operation.method.toLowerCase(), "responses", String(status))}`;
    if (typeof response.$ref === "string") {
      ref = `openapi.json${response.$ref}`;
      response = this.document.components.responses[response.$ref.split("/").pop()!] as Json;
    }
    const schema = response.content?.["application/json"]?.schema;
    if (!schema) return hasBody ? `${where}: the document declares no JSON body, yet one came` : undefined;
    if (!hasBody) return `${where}: the document declares a JSON body, yet none came`;
    const key = `${ref}/content/application~1json/schema`;
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile({ $ref: key });
      this.validators.set(key, validate);
    }
    if (validate(body)) return undefined;
    const errors = (validate.errors ?? [])
      .slice(0, 8)
      .map(
        (e) => `  ${e.instancePath || "(body)"} ${e.message ?? ""}${e.params ? ` ${JSON.stringify(e.params)}` : ""}`,
      );
    return `${where}: the body does not match the document:\n${errors.join("\n")}\nbody: ${JSON.stringify(body).slice(0, 1500)}`;
  }
}

const checkers = new Map<string, Promise<ResponseChecker>>();

/**
 * The document of the shared test system (every gateway of a test run serves the same one, and
 * fetching it from the system under test would cost a point of a small rate limit), or of
 * `baseUrl` outside the shared system's tests.
 */
function documentUrl(baseUrl: string): string {
  try {
    return `${inject("baseUrl")}/openapi.json`;
  } catch {
    return `${baseUrl}/openapi.json`;
  }
}

export function responseChecker(baseUrl: string): Promise<ResponseChecker> {
  const url = documentUrl(baseUrl);
  let checker = checkers.get(url);
  if (!checker) {
    checker = fetch(url).then(async (response) => {
      if (response.status !== 200) throw new Error(`GET ${url}: ${response.status}`);
      return new ResponseChecker((await response.json()) as Json);
    });
    checkers.set(url, checker);
    checker.catch(() => checkers.delete(url));
  }
  return checker;
}

/** Throws when the document does not describe a response the API gave. */
export async function checkResponse(
  baseUrl: string,
  method: string,
  path: string,
  status: number,
  body: unknown,
  hasBody: boolean,
): Promise<void> {
  const problem = (await responseChecker(baseUrl)).problem(method, path, status, body, hasBody);
  if (problem)
    throw new Error(`response of ${method.toUpperCase()} ${path} does not match the OpenAPI document: ${problem}`);
}
