import type { JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";

/** A tools/call request of the plain shape plainToolCall accepts. */
export type PlainToolCall = JSONRPCRequest & {
  method: "tools/call";
  params: { name: string; arguments?: Record<string, unknown> };
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const onlyKeys = (value: Record<string, unknown>, allowed: readonly string[]): boolean => {
  for (const key in value) if (!allowed.includes(key)) return false;
  return true;
};

const REQUEST_KEYS = ["jsonrpc", "id", "method", "params"] as const;
const PARAMS_KEYS = ["name", "arguments"] as const;

/**
 * The message as a tools/call request, when it has the plain shape nearly every call has: the
 * JSON-RPC envelope, a tool's name and its arguments, nothing else (no _meta, no task). Every
 * message it accepts, the SDK's JSONRPCMessageSchema and CallToolRequestSchema accept unchanged;
 * any other is left to them (undefined). The two zod parses cost a call several times what
 * these few reads do (docs/mcp.md, Cost).
 */
export function plainToolCall(message: unknown): PlainToolCall | undefined {
  if (!isObject(message) || !onlyKeys(message, REQUEST_KEYS)) return undefined;
  const { jsonrpc, id, method, params } = message;
  if (jsonrpc !== "2.0" || method !== "tools/call") return undefined;
  if (typeof id !== "string" && !Number.isSafeInteger(id)) return undefined;
  if (!isObject(params) || !onlyKeys(params, PARAMS_KEYS) || typeof params.name !== "string") return undefined;
  if (params.arguments !== undefined && !isObject(params.arguments)) return undefined;
  return message as PlainToolCall;
}
