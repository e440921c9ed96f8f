type Schema = Record<string, unknown>;

const FORMAT_EXAMPLES: Record<string, unknown> = {
  uuid: "0190f3c4-5d6e-7a8b-9c0d-1e2f3a4b5c6d",
  "date-time": "2026-11-21T14:03:00Z",
  date: "2026-11-21",
  email: "jane@example.com",
};

/**
 * An example value that satisfies a schema of the document: the declared example or default,
 * else the first enum value, else a value of the type within its bounds. Every property is
 * shown (an optional one with its non-null form), so that a reader sees the whole shape.
 */
export function exampleOf(schema: Schema, components: Record<string, Schema>, depth = 0): unknown {
  const ref = schema.$ref;
  if (typeof ref === "string") {
    const target = components[ref.slice("#/components/schemas/".length)];
    return target && depth < 8 ? exampleOf(target, components, depth + 1) : {};
  }
  if (Array.isArray(schema.anyOf)) {
    const options = schema.anyOf as Schema[];
    const first = options.find((option) => option.type !== "null") ?? options[0];
    return first ? exampleOf(first, components, depth) : null;
  }
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum)) return (schema.enum as unknown[]).find((value) => value !== null) ?? null;
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string | undefined];
  const type = types.find((t) => t !== "null");
  if (typeof schema.format === "string" && schema.format in FORMAT_EXAMPLES) return FORMAT_EXAMPLES[schema.format];
  switch (type) {
    case "string":
      return stringExample(schema);
    case "integer":
    case "number":
      return typeof schema.minimum === "number"
        ? schema.minimum
        : typeof schema.maximum === "number"
          ? Math.min(schema.maximum, 1)
          : 1;
    case "boolean":
      return true;
    case "array": {
      const count = typeof schema.minItems === "number" ? Math.max(1, schema.minItems) : 1;
      return Array.from({ length: count }, () =>
        exampleOf((schema.items as Schema | undefined) ?? {}, components, depth + 1),
      );
    }
    case "object":
      return objectExample(schema, components, depth);
    case "null":
      return null;
    default:
      return {};
  }
}

function stringExample(schema: Schema): string {
  const min = typeof schema.minLength === "number" ? schema.minLength : 0;
  const max = typeof schema.maxLength === "number" ? schema.maxLength : Infinity;
  return "string".padEnd(min, "s").slice(0, Math.max(1, Math.min(max, Math.max(min, 6))));
}

function objectExample(schema: Schema, components: Record<string, Schema>, depth: number): Record<string, unknown> {
  const properties = schema.properties as Record<string, Schema> | undefined;
  if (properties)
    return Object.fromEntries(
      Object.entries(properties).map(([name, property]) => [name, exampleOf(property, components, depth + 1)]),
    );
  const values = schema.additionalProperties;
  if (typeof values === "object" && values !== null && Object.keys(values).length > 0)
    return { key: exampleOf(values as Schema, components, depth + 1) };
  return {};
}
