import type { DescField, DescMessage } from "@bufbuild/protobuf";
import { fieldRules } from "@voiceops/platform";
import { SchemaBuilder, type Schema } from "../openapi/schemas.js";

/** One argument of a tool: a field of a request message, under its own name or another. */
export interface ToolParam {
  /** The argument's name in the tool's input. */
  name: string;
  field: DescField;
  /** Overrides the field's own `required` rule (a tool may fill the field itself). */
  required?: boolean;
  /** Replaces the field's description (its proto comment) where the tool gives it a new meaning. */
  description?: string;
}

/** The field `fieldName` of `message` as a tool argument (named as the field unless `as` says otherwise). */
export function param(
  message: DescMessage,
  fieldName: string,
  options: Omit<ToolParam, "name" | "field"> & { as?: string } = {},
): ToolParam {
  const field = message.fields.find((f) => f.name === fieldName);
  if (!field) throw new Error(`${message.typeName} has no field ${fieldName}`);
  const { as, ...rest } = options;
  return { name: as ?? field.name, field, ...rest };
}

/** Whether a tool requires the argument. */
export function isRequired(p: ToolParam): boolean {
  return p.required ?? Boolean(fieldRules(p.field)?.required);
}

// OpenAPI's numeric formats mean nothing to JSON Schema validators (which warn about them);
// the formats JSON Schema defines stay.
const JSON_SCHEMA_FORMATS = new Set(["date-time", "date", "time", "email", "uuid", "uri", "hostname", "ipv4", "ipv6"]);

const REF_PREFIX = "#/components/schemas/";

/**
 * A tool's schemas are self-contained JSON Schemas: the OpenAPI document's schemas of the same
 * messages (openapi/schemas.ts builds both), with every reference to a component inlined.
 */
export class ToolSchemas {
  private readonly builder = new SchemaBuilder({}, new Set());

  /** The input schema of a tool taking `params`. */
  input(params: ToolParam[]): Schema {
    const properties: Record<string, Schema> = {};
    for (const p of params) {
      const schema = this.resolve(this.builder.field(p.field, "input"));
      properties[p.name] = p.description ? { ...schema, description: p.description } : schema;
    }
    const required = params.filter(isRequired).map((p) => p.name);
    return { type: "object", properties, ...(required.length ? { required } : {}) };
  }

  /** The output schema of a tool answering a `message`, written as the REST API writes it. */
  output(message: DescMessage): Schema {
    return this.resolve(this.builder.message(message, "output"));
  }

  /** The schema with references inlined and OpenAPI-only formats left out. */
  private resolve(schema: unknown, path: readonly string[] = []): Schema {
    return this.walk(schema, path) as Schema;
  }

  private walk(value: unknown, path: readonly string[]): unknown {
    if (Array.isArray(value)) return value.map((item) => this.walk(item, path));
    if (typeof value !== "object" || value === null) return value;
    const object = value as Schema;
    const ref = object.$ref;
    if (typeof ref === "string" && ref.startsWith(REF_PREFIX)) {
      const name = ref.slice(REF_PREFIX.length);
      if (path.includes(name)) throw new Error(`tool schema: ${name} refers to itself and cannot be inlined`);
      const { $ref: _ref, ...siblings } = object;
      return {
        ...(this.walk(this.builder.components[name], [...path, name]) as Schema),
        ...(this.walk(siblings, path) as Schema),
      };
    }
    const out: Schema = {};
    for (const [key, child] of Object.entries(object)) {
      if (key === "format" && typeof child === "string" && !JSON_SCHEMA_FORMATS.has(child)) continue;
      // Property names are data, not schema keywords: walk their schemas, keep the names.
      out[key] =
        key === "properties"
          ? Object.fromEntries(Object.entries(child as Schema).map(([name, s]) => [name, this.walk(s, path)]))
          : this.walk(child, path);
    }
    return out;
  }
}
