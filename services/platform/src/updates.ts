import { isFieldSet, type DescMessage } from "@bufbuild/protobuf";
import type { FieldMask } from "@bufbuild/protobuf/wkt";

/**
 * The proto names of the fields a partial update touches, limited to `allowed`: the mask's
 * paths when there is a mask (the gateway fills it from the JSON body's keys, so a key sent as
 * null is in it), else the fields set on the message (a gRPC caller without a mask).
 */
export function updatedFields<F extends string>(
  desc: DescMessage,
  message: object | undefined,
  mask: FieldMask | undefined,
  allowed: readonly F[],
): F[] {
  const known = new Set<string>(allowed);
  if (mask) return [...new Set(mask.paths)].filter((path): path is F => known.has(path));
  if (!message) return [];
  return desc.fields
    .filter((field) => known.has(field.name) && isFieldSet(message as never, field))
    .map((field) => field.name as F);
}

/** Trimmed text, or null for absent or blank text (a blank optional field is stored as null). */
export function blankToNull(text: string | undefined): string | null {
  const trimmed = text?.trim();
  return trimmed ? trimmed : null;
}

/** Trimmed, distinct, non-blank entries of a list of labels (tags, skills), in first-seen order. */
export function distinctLabels(items: readonly string[]): string[] {
  return [...new Set(items.map((item) => item.trim()).filter((item) => item !== ""))];
}
