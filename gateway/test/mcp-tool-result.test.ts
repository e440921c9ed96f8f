import { describe, expect, it } from "vitest";
import { messageJson, structuredResult } from "../src/mcp/tool-result.js";

// The answer of a tool's result is written with its structured content's JSON made once:
// it must read back as the same message JSON.stringify would have written.
describe("messageJson", () => {
  const structured = { contacts: [{ id: "c-1", name: 'Ann "The Plumber" O\'Neil\n', tags: ["a", "ü"] }], total: 1 };

  it("writes a structured result's answer as JSON.stringify would", () => {
    for (const result of [
      structuredResult(structured),
      structuredResult(structured, { "voiceops/idempotent-replayed": true }),
      structuredResult({}),
    ]) {
      for (const id of [1, 'req-"7"', 0]) {
        const message = { jsonrpc: "2.0" as const, id, result };
        const text = messageJson(message);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(message)));
        expect(JSON.parse(text).result.content[0].text).toBe(JSON.stringify(result.structuredContent));
      }
    }
  });

  it("writes any other message with JSON.stringify", () => {
    const plain = {
      jsonrpc: "2.0" as const,
      id: 2,
      result: { content: [{ type: "text", text: "x" }], structuredContent: { a: 1 } },
    };
    expect(messageJson(plain)).toBe(JSON.stringify(plain));
    const error = { jsonrpc: "2.0" as const, id: 3, error: { code: -32602, message: "bad" } };
    expect(messageJson(error)).toBe(JSON.stringify(error));
  });
});
