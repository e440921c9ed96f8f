import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { expect, inject } from "vitest";
import { type ApiClient, newTenant, OPEN_AROUND_THE_CLOCK, testAdmin, type Tenant } from "@voiceops/platform/testing";

// Shared by the MCP tests: a client of the SDK over real HTTP, and what a tool result holds.

/** An MCP client of the test system's /mcp, sending `headers` (the API key) with every request. */
export async function mcpClient(headers: Record<string, string>, baseUrl: string = inject("baseUrl")): Promise<Client> {
  const client = new Client({ name: "voiceops-tests", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers } }));
  // The SDK checks each structured result against the tool's output schema once it knows them.
  await client.listTools();
  return client;
}

/** An MCP client with a REST client's key. */
export function mcpClientOf(api: ApiClient): Promise<Client> {
  return mcpClient({ "x-api-key": api.apiKey ?? "" }, api.baseUrl);
}

/** A successful result's structured content; its text content is the same JSON. */
export function structured<T = any>(result: CallToolResult): T {
  expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
  const text = result.content.find((c) => c.type === "text");
  expect(text && "text" in text ? JSON.parse(text.text) : undefined).toEqual(result.structuredContent);
  return result.structuredContent as T;
}

/** A failed result's REST error body ({status, detail}); its first text states each problem. */
export function failure(result: CallToolResult): { status: number; detail: any; text: string } {
  expect(result.isError, JSON.stringify(result)).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  const texts = result.content.flatMap((c) => (c.type === "text" ? [c.text] : []));
  const body = JSON.parse(texts[1] ?? "{}") as { status: number; detail: any };
  return { ...body, text: texts[0] ?? "" };
}

/** Calls a tool, expecting success. */
export async function call<T = any>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  return structured<T>((await client.callTool({ name, arguments: args })) as CallToolResult);
}

/** Calls a tool, expecting an isError result. */
export async function callFailing(client: Client, name: string, args: Record<string, unknown> = {}) {
  return failure((await client.callTool({ name, arguments: args })) as CallToolResult);
}

/**
 * A fresh organization in America/Chicago, open around the clock unless `hours` say otherwise
 * (so slots exist whenever the tests run), with an owner and a member key.
 */
export function openTenant(
  hours: Record<string, { start: string; end: string }[]> = OPEN_AROUND_THE_CLOCK,
  baseUrl: string = inject("baseUrl"),
): Promise<Tenant> {
  return newTenant(baseUrl, testAdmin(), {
    name: `MCP ${Math.random().toString(36).slice(2)}`,
    timezone: "America/Chicago",
    business_hours: hours,
  });
}
