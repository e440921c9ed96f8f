import { protocol } from "@electric-sql/pglite";
import { describe, expect, it } from "vitest";
import { bindExecuteSync } from "../src/fast-path/pglite-protocol.js";

// The messages written in one buffer are byte for byte those PGlite's own serializer writes.
describe("bindExecuteSync", () => {
  const pglite = (statement: string, values: (string | null)[]) =>
    Buffer.concat([
      protocol.serialize.bind({ statement, values }),
      protocol.serialize.execute({}),
      protocol.serialize.sync(),
    ]);

  it.each([
    ["no parameters", "voiceops_1", []],
    ["text and nulls", "voiceops_22", ["a", null, "", "0193a8f0-7c1e-7000-8000-000000000000", null]],
    ["multi-byte text", "voiceops_333", ["Zoë Øster", "配管工", "🔧 plumber", "\u00a0tab\tnew\nline"]],
    ["long text", "voiceops_4", ["x".repeat(100_000), "é".repeat(40_000)]],
  ] as const)("%s", (_name, statement, values) => {
    expect(Buffer.from(bindExecuteSync(statement, values))).toEqual(Buffer.from(pglite(statement, [...values])));
  });

  it("hands a value that is not text to PGlite's serializer", () => {
    const bytes = new Uint8Array([1, 2, 3]);
    const expected = Buffer.concat([
      protocol.serialize.bind({ statement: "s", values: ["a", bytes as unknown as string] }),
      protocol.serialize.execute({}),
      protocol.serialize.sync(),
    ]);
    expect(Buffer.from(bindExecuteSync("s", ["a", bytes]))).toEqual(Buffer.from(expected));
  });
});
