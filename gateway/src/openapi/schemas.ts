import { ScalarType, type DescEnum, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { protoComments } from "@voiceops/proto/comments";
import { enumJsonValues, enumToJson, fieldRules } from "@voiceops/platform";

export type Schema = Record<string, unknown>;

/**
 * Which way a message travels. A request may omit any field that is not required and may send
 * null for optional ones; a response always writes every field (json-codec's writeMessage), null
 * only for an `optional` field that is unset.
 */
type Direction = "input" | "output";

const SCALAR_SCHEMAS: Partial<Record<ScalarType, Schema>> = {
  [ScalarType.STRING]: { type: "string" },
  [ScalarType.BOOL]: { type: "boolean" },
  [ScalarType.INT32]: { type: "integer", format: "int32" },
  [ScalarType.SINT32]: { type: "integer", format: "int32" },
  [ScalarType.SFIXED32]: { type: "integer", format: "int32" },
  [ScalarType.UINT32]: { type: "integer", format: "int64", minimum: 0 },
  [ScalarType.FIXED32]: { type: "integer", format: "int64", minimum: 0 },
  [ScalarType.INT64]: { type: "integer", format: "int64" },
  [ScalarType.SINT64]: { type: "integer", format: "int64" },
  [ScalarType.SFIXED64]: { type: "integer", format: "int64" },
  [ScalarType.UINT64]: { type: "integer", format: "int64", minimum: 0 },
  [ScalarType.FIXED64]: { type: "integer", format: "int64", minimum: 0 },
  [ScalarType.DOUBLE]: { type: "number", format: "double" },
  [ScalarType.FLOAT]: { type: "number", format: "float" },
  [ScalarType.BYTES]: { type: "string", contentEncoding: "base64" },
};

/** The proto comment of an element, by its full name ("voiceops.crm.v1.Contact.name"). */
export function commentOf(fullName: string): string | undefined {
  return protoComments[fullName] || undefined;
}

function fieldComment(field: DescField): string | undefined {
  return commentOf(`${field.parent.typeName}.${field.name}`);
}

/** An enum's description: its comment, then the values that have one. */
function enumDescription(desc: DescEnum): string | undefined {
  const lines = desc.values.flatMap((value) => {
    const text = commentOf(`${desc.typeName}.${value.name}`);
    const name = enumToJson(desc, value.number);
    return text && name ? [`${name}: ${text}`] : [];
  });
  const head = commentOf(desc.typeName);
  const text = [head, ...lines].filter(Boolean).join("\n");
  return text || undefined;
}

/** The same schema, also allowing null. */
function orNull(schema: Schema): Schema {
  if ("$ref" in schema || "anyOf" in schema) {
    const { description, ...rest } = schema;
    return { anyOf: [rest, { type: "null" }], ...(description ? { description } : {}) };
  }
  if (schema.type === undefined) return schema; // already any JSON value
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  const nullable: Schema = { ...schema, type: types.includes("null") ? types : [...types, "null"] };
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) nullable.enum = [...(schema.enum as unknown[]), null];
  return nullable;
}

/** Example values for strings whose rules a plain string example would break. */
function ruleExamples(field: DescField): unknown[] | undefined {
  const rules = fieldRules(field);
  if (rules?.phone) return ["(555) 010-2000"];
  if (rules?.timezone) return ["America/Chicago"];
  if (rules?.email) return ["jane@example.com"];
  return undefined;
}

/**
 * JSON Schemas of proto messages, as the REST API reads and writes them (json-codec): one
 * component per message and direction, referenced by name.
 */
export class SchemaBuilder {
  readonly components: Record<string, Schema>;
  private readonly names = new Map<string, string>();

  /**
   * @param reserved components that exist already (error bodies)
   * @param outputTypes messages that responses contain: their request-side schema is named `<Name>Input`
   */
  constructor(
    reserved: Record<string, Schema>,
    private readonly outputTypes: ReadonlySet<string>,
  ) {
    this.components = { ...reserved };
  }

  /** A reference to the component of a message. */
  ref(desc: DescMessage, direction: Direction): Schema {
    const key = `${direction} ${desc.typeName}`;
    let name = this.names.get(key);
    if (!name) {
      const suffix = direction === "input" && this.outputTypes.has(desc.typeName) ? "Input" : "";
      name = `${desc.name}${suffix}`;
      if (name in this.components) name = `${desc.typeName.replace(/\./g, "_")}${suffix}`;
      this.names.set(key, name);
      this.components[name] = {}; // placeholder first: messages may refer to themselves
      this.components[name] = this.message(desc, direction);
    }
    return { $ref: `#/components/schemas/${name}` };
  }

  /** The schema of a message's fields, less those in `skip`. */
  message(desc: DescMessage, direction: Direction, skip: ReadonlySet<DescField> = new Set()): Schema {
    const properties: Record<string, Schema> = {};
    const required: string[] = [];
    for (const field of desc.fields) {
      if (skip.has(field) || field.message?.typeName === "google.protobuf.FieldMask") continue;
      properties[field.name] = this.field(field, direction);
      if (direction === "output" || fieldRules(field)?.required) required.push(field.name);
    }
    const description = commentOf(desc.typeName);
    return {
      type: "object",
      ...(description ? { description } : {}),
      properties,
      ...(required.length ? { required } : {}),
      // A response has exactly the message's fields; a request's unknown keys are ignored.
      ...(direction === "output" ? { additionalProperties: false } : {}),
    };
  }

  /** The schema of one value of a field (one element, for lists and maps). */
  private value(field: DescField, direction: Direction): Schema {
    const kind =
      field.fieldKind === "list" ? field.listKind : field.fieldKind === "map" ? field.mapKind : field.fieldKind;
    if (kind === "enum" && field.enum) {
      const description = enumDescription(field.enum);
      return { type: "string", enum: enumJsonValues(field.enum), ...(description ? { description } : {}) };
    }
    if (kind === "message" && field.message) {
      const typeName = field.message.typeName;
      if (typeName === "google.protobuf.Timestamp") return { type: "string", format: "date-time" };
      if (typeName === "google.protobuf.Struct") return { type: "object", additionalProperties: true };
      if (typeName === "google.protobuf.Value") return {};
      return this.ref(field.message, direction);
    }
    const schema = { ...(SCALAR_SCHEMAS[field.scalar ?? ScalarType.STRING] ?? { type: "string" }) };
    const rules = fieldRules(field);
    if (rules?.uuid) schema.format = "uuid";
    if (rules?.date) schema.format = "date";
    if (rules?.email) schema.format = "email";
    const examples = ruleExamples(field);
    if (examples) schema.examples = examples;
    return schema;
  }

  /** The schema of a field: its value, its list or map, its limits, and whether it may be null. */
  field(field: DescField, direction: Direction): Schema {
    const rules = fieldRules(field);
    const input = direction === "input";
    let schema: Schema;
    if (field.fieldKind === "list") {
      schema = { type: "array", items: this.value(field, direction) };
      if (input && rules?.minItems !== undefined) schema.minItems = rules.minItems;
      if (input && rules?.maxItems !== undefined) schema.maxItems = rules.maxItems;
    } else if (field.fieldKind === "map") {
      schema = { type: "object", additionalProperties: this.value(field, direction) };
    } else {
      schema = this.value(field, direction);
      if (input) {
        if (rules?.min !== undefined) schema.minimum = Number(rules.min);
        if (rules?.max !== undefined) schema.maximum = Number(rules.max);
        if (rules?.minLen !== undefined) schema.minLength = rules.minLen;
        if (rules?.maxLen !== undefined) schema.maxLength = rules.maxLen;
        if (rules?.in.length) schema.enum = rules.in;
        if (rules?.defaultJson !== undefined) schema.default = JSON.parse(rules.defaultJson) as unknown;
      }
      if (this.nullable(field, direction)) schema = orNull(schema);
    }
    const description = rules?.description || fieldComment(field);
    if (description) schema = { ...schema, description };
    return schema;
  }

  /**
   * Output: an `optional` field is null when unset; any other field is always written (a
   * message field without `optional` is always set by its handler). Input: an optional or
   * message field may be sent as null (meaning unset, or "clear" on an update) unless its rules
   * forbid it.
   */
  private nullable(field: DescField, direction: Direction): boolean {
    if (direction === "output") return field.proto.proto3Optional === true;
    const rules = fieldRules(field);
    return (
      (field.proto.proto3Optional === true || field.fieldKind === "message") && !rules?.notNull && !rules?.required
    );
  }

  /** A path, query or header parameter's schema: never null (a parameter is given or not). */
  parameter(field: DescField): Schema {
    const { description: _description, ...schema } = this.field(field, "input");
    if (!Array.isArray(schema.type)) return schema;
    const types = (schema.type as string[]).filter((t) => t !== "null");
    const enumValues = Array.isArray(schema.enum) ? { enum: (schema.enum as unknown[]).filter((v) => v !== null) } : {};
    return { ...schema, type: types.length === 1 ? types[0] : types, ...enumValues };
  }
}

/** Every message a response can contain, by type name. */
export function outputMessageTypes(roots: DescMessage[]): Set<string> {
  const seen = new Set<string>();
  const visit = (desc: DescMessage) => {
    if (seen.has(desc.typeName)) return;
    seen.add(desc.typeName);
    for (const field of desc.fields) if (field.message) visit(field.message);
  };
  roots.forEach(visit);
  return seen;
}
