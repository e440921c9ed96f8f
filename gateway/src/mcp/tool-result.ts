import type { CallToolResult, JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** The catalog's results, whose one text content is the JSON of their structured content. */
const structuredResults = new WeakSet<object>();

/**
 * A tool's result: its structured content, and the same JSON as text (CONTRACT.md, agent
 * tools). `meta` is the result's `_meta`, when it has one.
 */
export function structuredResult(structured: Record<string, unknown>, meta?: Record<string, unknown>): CallToolResult {
  const result: CallToolResult = {
    content: [{ type: "text", text: JSON.stringify(structured) }],
    structuredContent: structured,
    ...(meta ? { _meta: meta } : {}),
  };
  structuredResults.add(result);
  return result;
}

/**
 * A JSON-RPC message as JSON text. The answer of a structuredResult is written with its text
 * content placed as the structured content, so the result's JSON is made once, not twice.
 */
export function messageJson(message: JSONRPCMessage): string {
  if (!("result" in message) || !structuredResults.has(message.result)) return JSON.stringify(message);
  const result = message.result;
  const { content, structuredContent: _structured, ...rest } = result as CallToolResult;
  const text = (content[0] as { text: string }).text;
  const others = JSON.stringify(rest);
  return `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":{"content":${JSON.stringify(content)},"structuredContent":${text}${others === "{}" ? "}" : `,${others.slice(1)}`}}`;
}
