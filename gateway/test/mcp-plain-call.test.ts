import { CallToolRequestSchema, JSONRPCMessageSchema, JSONRPCRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { plainToolCall } from "../src/mcp/plain-call.js";

const call = {
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "search_contacts", arguments: { query: "+15550010000" } },
};

/** Variants of a call: each key of the envelope and of params replaced, removed or added. */
function variants(): unknown[] {
  const values: unknown[] = [
    undefined,
    null,
    0,
    1.5,
    -1,
    2 ** 60,
    "",
    "x",
    "2.0",
    "tools/call",
    true,
    [],
    [1],
    {},
    { a: 1 },
  ];
  const out: unknown[] = [call, { ...call, params: { name: "t" } }, { ...call, id: "abc" }];
  for (const key of ["jsonrpc", "id", "method", "params", "extra", "_meta", "result"]) {
    for (const value of values) out.push({ ...call, [key]: value });
  }
  for (const key of ["name", "arguments", "task", "_meta", "other"]) {
    for (const value of values) out.push({ ...call, params: { ...call.params, [key]: value } });
  }
  out.push(null, [], "tools/call", [call], { ...call, params: [] });
  return out;
}

describe("plainToolCall", () => {
  it("accepts the plain call, as the SDK's schemas do", () => {
    expect(plainToolCall(call)).toBe(call);
    expect(plainToolCall({ ...call, params: { name: "t" } })).toBeDefined();
  });

  it("accepts only messages the SDK's schemas accept, and reads them the same", () => {
    let accepted = 0;
    for (const message of variants()) {
      const plain = plainToolCall(message);
      if (!plain) continue;
      accepted++;
      expect(JSONRPCMessageSchema.safeParse(message).success).toBe(true);
      expect(JSONRPCRequestSchema.safeParse(message).success).toBe(true);
      const parsed = CallToolRequestSchema.safeParse(message);
      expect(parsed.success).toBe(true);
      expect(parsed.data?.params).toEqual(plain.params);
    }
    expect(accepted).toBeGreaterThan(3);
  });

  it("leaves the rest to the schemas: _meta, a task, extra keys, a wrong id or version", () => {
    for (const message of [
      { ...call, params: { ...call.params, _meta: { progressToken: 1 } } },
      { ...call, params: { ...call.params, task: {} } },
      { ...call, extra: 1 },
      { ...call, id: 1.5 },
      { ...call, id: null },
      { ...call, jsonrpc: "1.0" },
      { ...call, method: "tools/list" },
      { ...call, params: { ...call.params, arguments: [] } },
      { ...call, params: { name: 7 } },
    ])
      expect(plainToolCall(message)).toBeUndefined();
  });
});
