import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { getTextEncoding } from "@bufbuild/protobuf/wire";
import { ContactSchema } from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";
import { describe, expect, it } from "vitest";
import { useNodeUtf8Encoder } from "../src/fast-path/index.js";

// The `utf8` fast path: protobuf-es's strings written by Buffer.from must be the bytes
// TextEncoder writes, for every kind of text a contact can hold.

const TEXTS = [
  "",
  "Contact 1",
  "Zoë Müller-Łukasiewicz",
  "配管工の山田",
  "🔧 Emergency plumber 🚿",
  "a lone surrogate \uD800 and another \uDFFF",
  "x".repeat(10_000),
  "é".repeat(5_000),
];

describe("the utf8 fast path", () => {
  it("writes the same protobuf bytes as TextEncoder", () => {
    const stockEncoder = getTextEncoding().encodeUtf8;
    const messages = TEXTS.map((text, i) =>
      create(ContactSchema, { id: `id-${i}`, name: text, notes: text, tags: [text, "vip"] }),
    );
    const stock = messages.map((message) => toBinary(ContactSchema, message));
    useNodeUtf8Encoder();
    expect(getTextEncoding().encodeUtf8).not.toBe(stockEncoder);
    for (const text of TEXTS) expect(Buffer.compare(getTextEncoding().encodeUtf8(text), stockEncoder(text))).toBe(0);
    messages.forEach((message, i) => {
      const fast = toBinary(ContactSchema, message);
      expect(Buffer.compare(fast, stock[i] as Uint8Array)).toBe(0);
      // (A lone surrogate is written as U+FFFD by both.)
      expect(fromBinary(ContactSchema, fast)).toEqual(fromBinary(ContactSchema, stock[i] as Uint8Array));
    });
  });
});
