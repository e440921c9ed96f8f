import {
  getOption,
  hasOption,
  type DescField,
  type DescMessage,
  type DescMethod,
  type DescService,
} from "@bufbuild/protobuf";
import { http } from "@voiceops/proto/google/api/annotations_pb";
import { fieldRules, methodRules, type Role } from "@voiceops/platform";

/** A request field bound to an HTTP request header. */
interface HeaderField {
  field: DescField;
  /** Lower-case header name, e.g. "x-internal-key". */
  header: string;
}

type HttpVerb = "get" | "post" | "put" | "patch" | "delete";

/** One REST route, read from an RPC's google.api.http annotation. */
export interface Route {
  verb: HttpVerb;
  /** Template as annotated, e.g. "/api/contacts/{contact_id}". */
  template: string;
  service: DescService;
  method: DescMethod & { methodKind: "unary" };
  /** Fields bound to path segments. */
  pathFields: DescField[];
  /** "*" for the whole request, a field for one field, undefined for no body. */
  body: "*" | DescField | undefined;
  /** Fields read from the query string: the rest, when the body is not "*". */
  queryFields: DescField[];
  /** Fields read from a request header (FieldRules.header), never from path, query or body. */
  headerFields: HeaderField[];
  /** Field of the response sent as the body, or undefined for the whole response. */
  responseBody: DescField | undefined;
  successStatus: number;
  roles: Role[];
  summary: string;
  /** The rules clients rely on, for the OpenAPI document. */
  description: string;
  /** The request message has an update_mask the gateway fills from the body's keys. */
  updateMask: DescField | undefined;
  /** The route takes a file (UploadRules), or undefined. */
  upload: UploadSpec | undefined;
}

/** A route's file upload, as its UploadRules declare it. */
export interface UploadSpec {
  /** The request field receiving the voiceops.api.v1.UploadedFile. */
  field: DescField;
  maxBytes: number;
  contentTypes: string[];
  extensions: string[];
  multipart: boolean;
  raw: boolean;
  /** Request fields that multipart parts may fill (neither the path's nor the file's). */
  formFields: DescField[];
}

function uploadOf(method: DescMethod, pathFields: DescField[], where: string): UploadSpec | undefined {
  const rules = methodRules(method)?.upload;
  if (!rules) return undefined;
  const field = fieldByName(method.input, rules.field, where);
  if (field.message?.typeName !== "voiceops.api.v1.UploadedFile")
    throw new Error(`${where}: upload field ${rules.field} must be a voiceops.api.v1.UploadedFile`);
  if (rules.maxBytes <= 0n) throw new Error(`${where}: upload needs max_bytes`);
  return {
    field,
    maxBytes: Number(rules.maxBytes),
    contentTypes: rules.contentTypes.map((type) => type.toLowerCase()),
    extensions: rules.extensions.map((ending) => ending.toLowerCase()),
    multipart: rules.multipart,
    raw: rules.raw,
    formFields: method.input.fields.filter((f) => f !== field && !pathFields.includes(f) && f.name !== "update_mask"),
  };
}

function fieldByName(message: DescMessage, name: string, where: string): DescField {
  const field = message.fields.find((f) => f.name === name);
  if (!field) throw new Error(`${where}: ${message.typeName} has no field ${name}`);
  return field;
}

function routeOf(service: DescService, method: DescMethod): Route | undefined {
  if (!hasOption(method, http)) return undefined;
  if (method.methodKind !== "unary") throw new Error(`${method.name}: only unary RPCs can be mapped to REST`);
  const rule = getOption(method, http);
  const where = `${service.typeName}.${method.name}`;
  const { case: verb, value: template } = rule.pattern;
  if (verb !== "get" && verb !== "post" && verb !== "put" && verb !== "patch" && verb !== "delete") {
    throw new Error(`${where}: unsupported HTTP pattern ${String(verb)}`);
  }
  const input = method.input;
  const pathNames = [...template.matchAll(/\{([a-z_][a-z0-9_]*)\}/g)].map((match) => match[1] ?? "");
  const pathFields = pathNames.map((name) => fieldByName(input, name, where));
  const body = rule.body === "" ? undefined : rule.body === "*" ? "*" : fieldByName(input, rule.body, where);
  const updateMask = input.fields.find(
    (f) => f.name === "update_mask" && f.message?.typeName === "google.protobuf.FieldMask",
  );
  const upload = uploadOf(method, pathFields, where);
  const headerFields = input.fields.flatMap((field) => {
    const header = fieldRules(field)?.header;
    if (!header) return [];
    if (pathFields.includes(field) || field === body || field === upload?.field || field.fieldKind !== "scalar") {
      throw new Error(`${where}: header field ${field.name} must be a scalar outside the path, body and upload`);
    }
    return [{ field: field as DescField, header: header.toLowerCase() }];
  });
  const fromHeader = new Set<DescField>(headerFields.map((h) => h.field));
  const queryFields =
    body === "*"
      ? []
      : input.fields.filter(
          (f) => !pathFields.includes(f) && f !== body && f !== updateMask && f !== upload?.field && !fromHeader.has(f),
        );
  const rules = methodRules(method);
  return {
    verb,
    template,
    service,
    method: method as Route["method"],
    pathFields,
    body,
    queryFields,
    headerFields,
    responseBody: rule.responseBody ? fieldByName(method.output, rule.responseBody, where) : undefined,
    successStatus: rules?.successStatus || 200,
    roles: (rules?.roles ?? []) as Role[],
    summary: rules?.summary ?? method.name,
    description: rules?.description ?? "",
    updateMask,
    upload,
  };
}

/**
 * Literal segments win over parameters at the same position, so "/api/contacts/search" is
 * tried before "/api/contacts/{contact_id}" (the order Express's router tries them in, and the
 * order of the OpenAPI document). A total
 * order (segment kinds compared left to right, then the shorter first), so the sort is sound
 * whatever order the services list their routes in.
 */
function compareSpecificity(a: Route, b: Route): number {
  const sa = a.template.split("/");
  const sb = b.template.split("/");
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    const pa = sa[i]?.startsWith("{") ?? false;
    const pb = sb[i]?.startsWith("{") ?? false;
    if (pa !== pb) return pa ? 1 : -1;
  }
  return sa.length - sb.length;
}

/** Every annotated RPC of the given services, in matching order. */
export function collectRoutes(services: DescService[]): Route[] {
  const routes = services.flatMap((service) =>
    service.methods.map((method) => routeOf(service, method)).filter((r): r is Route => r !== undefined),
  );
  const seen = new Set<string>();
  for (const route of routes) {
    const key = `${route.verb} ${route.template}`;
    if (seen.has(key)) throw new Error(`two RPCs are mapped to ${key}`);
    seen.add(key);
  }
  return routes.sort(compareSpecificity);
}
