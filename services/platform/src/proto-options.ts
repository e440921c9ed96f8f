import { getOption, hasOption, type DescEnum, type DescField, type DescMethod } from "@bufbuild/protobuf";
import {
  enum$ as enumRulesExt,
  field as fieldRulesExt,
  method as methodRulesExt,
  type EnumRules,
  type FieldRules,
  type MethodRules,
} from "@voiceops/proto/voiceops/api/v1/annotations_pb";

// Options are read once per descriptor; requests then only do map lookups.
const fieldCache = new WeakMap<DescField, FieldRules | null>();
const methodCache = new WeakMap<DescMethod, MethodRules | null>();
const enumCache = new WeakMap<DescEnum, EnumSpelling>();

export function fieldRules(field: DescField): FieldRules | undefined {
  let rules = fieldCache.get(field);
  if (rules === undefined) {
    rules = hasOption(field, fieldRulesExt) ? getOption(field, fieldRulesExt) : null;
    fieldCache.set(field, rules);
  }
  return rules ?? undefined;
}

export function methodRules(method: DescMethod): MethodRules | undefined {
  let rules = methodCache.get(method);
  if (rules === undefined) {
    rules = hasOption(method, methodRulesExt) ? getOption(method, methodRulesExt) : null;
    methodCache.set(method, rules);
  }
  return rules ?? undefined;
}

interface EnumSpelling {
  toJson: Map<number, string>;
  fromJson: Map<string, number>;
  values: string[];
}

/**
 * JSON spelling of an enum: the value name without the enum's prefix, lower case unless the
 * enum says upper case (CONTACT_STATUS_LEAD -> "lead", SERVICE_REQUEST_PRIORITY_HIGH -> "HIGH").
 * The zero value (*_UNSPECIFIED) has no spelling: it is never accepted nor shown.
 */
function spelling(desc: DescEnum): EnumSpelling {
  let cached = enumCache.get(desc);
  if (!cached) {
    const rules: EnumRules | undefined = hasOption(desc, enumRulesExt) ? getOption(desc, enumRulesExt) : undefined;
    const prefix = (desc.sharedPrefix ?? "").toUpperCase();
    cached = { toJson: new Map(), fromJson: new Map(), values: [] };
    for (const value of desc.values) {
      if (value.number === 0) continue;
      let name = value.name.startsWith(prefix) ? value.name.slice(prefix.length) : value.name;
      name = rules?.upperCase ? name.toUpperCase() : name.toLowerCase();
      cached.toJson.set(value.number, name);
      cached.fromJson.set(name, value.number);
      cached.values.push(name);
    }
    enumCache.set(desc, cached);
  }
  return cached;
}

export function enumToJson(desc: DescEnum, value: number): string | null {
  return spelling(desc).toJson.get(value) ?? null;
}

/** A list filter on an enum: its JSON spelling, or undefined when the request leaves it out (or sends the zero value). */
export function enumFilter(desc: DescEnum, value: number | undefined): string | undefined {
  return value === undefined ? undefined : (enumToJson(desc, value) ?? undefined);
}

export function enumFromJson(desc: DescEnum, text: string): number | undefined {
  return spelling(desc).fromJson.get(text);
}

export function enumJsonValues(desc: DescEnum): string[] {
  return spelling(desc).values;
}
