import { isFieldSet, ScalarType, type DescField, type DescMessage, type Message } from "@bufbuild/protobuf";
import type { GenMessage } from "@bufbuild/protobuf/codegenv2";
import { enumFromJson, fieldRules } from "./proto-options.js";

// A field's default is declared once, as `(voiceops.api.v1.field).default_json` in proto. The
// server interceptors fill it into every request (gateway and direct gRPC callers alike);
// handlers read it through `withDefaults`, which types it as present without repeating it.

const LONG_TYPES = new Set([
  ScalarType.INT64,
  ScalarType.UINT64,
  ScalarType.SINT64,
  ScalarType.FIXED64,
  ScalarType.SFIXED64,
]);

/** The declared default of a field as JSON (an enum by its JSON spelling), or undefined when it declares none. */
export function declaredDefault(field: DescField): unknown {
  const json = fieldRules(field)?.defaultJson;
  return json === undefined ? undefined : (JSON.parse(json) as unknown);
}

/** The declared default of a field as the message holds it (an enum by number, a 64-bit integer as bigint). */
function defaultValue(field: DescField, json: unknown): unknown {
  if (field.fieldKind === "enum" && typeof json === "string") return enumFromJson(field.enum, json);
  if (field.fieldKind === "scalar" && LONG_TYPES.has(field.scalar) && typeof json === "number") return BigInt(json);
  return json;
}

/**
 * Fills absent top-level fields that declare a default (default_json). An explicit value is
 * never replaced; nested messages (the bodies of partial updates) are left alone.
 */
export function applyDefaults(schema: DescMessage, message: Record<string, unknown>): void {
  for (const field of schema.fields) {
    const json = declaredDefault(field);
    if (json === undefined || isFieldSet(message as never, field)) continue;
    message[field.localName] = defaultValue(field, json);
  }
}

/** A request whose named fields are known to hold a value (theirs or the declared default). */
type Defaulted<T, K extends keyof T> = T & { [P in K]-?: Exclude<T[P], undefined> };

/**
 * The request with the named fields typed as present: each must declare a default in proto
 * (a field without one is a programming error and throws), which fills it when absent. The
 * interceptors have normally filled it already; this keeps handlers free of a second copy.
 */
export function withDefaults<T extends Message, K extends keyof T & string>(
  schema: GenMessage<T>,
  message: T,
  ...fields: K[]
): Defaulted<T, K> {
  for (const name of fields) {
    const field = schema.field[name as keyof typeof schema.field] as DescField | undefined;
    const json = field ? declaredDefault(field) : undefined;
    if (!field || json === undefined) throw new Error(`${schema.typeName}.${name} declares no default`);
    if (!isFieldSet(message, field)) (message as Record<string, unknown>)[field.localName] = defaultValue(field, json);
  }
  return message as Defaulted<T, K>;
}
