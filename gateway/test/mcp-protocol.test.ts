import { Ajv2020 } from "ajv/dist/2020.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, inject, it } from "vitest";
import { fastPath } from "@voiceops/platform";
import { tenantFactory } from "@voiceops/platform/testing";

const baseUrl = inject("baseUrl");
const tenant = tenantFactory();

async function connect(headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "mcp-protocol-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers } }));
  return client;
}

const TOOLS = [
  "lookup_caller",
  "search_contacts",
  "save_contact",
  "create_service_request",
  "get_service_request",
  "flag_emergency",
  "get_on_call_technician",
  "dispatch_technician",
  "find_slots",
  "hold_slot",
  "book_appointment",
  "reschedule_appointment",
  "cancel_appointment",
  "list_appointment_types",
  "search_knowledge_base",
  "get_business_hours",
  "save_caller_memory",
  "check_do_not_call",
  "add_to_do_not_call",
  "create_lead",
];

describe("MCP endpoint: protocol", () => {
  it("lists every tool with valid input and output JSON Schemas, descriptions and annotations", async () => {
    const { owner } = await tenant();
    const client = await connect({ "x-api-key": owner.apiKey ?? "" });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOLS);
    const ajv = new Ajv2020({ strict: false });
    for (const tool of tools) {
      expect(tool.description?.length).toBeGreaterThan(40);
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.outputSchema?.type).toBe("object");
      expect(ajv.validateSchema(tool.inputSchema), `${tool.name} input: ${ajv.errorsText()}`).toBe(true);
      expect(ajv.validateSchema(tool.outputSchema as object), `${tool.name} output: ${ajv.errorsText()}`).toBe(true);
      expect(JSON.stringify(tool)).not.toContain("$ref");
      expect(tool.annotations).toMatchObject({ openWorldHint: false });
      expect(typeof tool.annotations?.readOnlyHint).toBe("boolean");
      const write = tool.annotations?.readOnlyHint === false;
      expect(Object.keys(tool.inputSchema.properties ?? {}).includes("idempotency_key"), tool.name).toBe(write);
    }
    await client.close();
  });

  it("derives the same limits and enums as the REST API's OpenAPI document", async () => {
    const { owner } = await tenant();
    const client = await connect({ "x-api-key": owner.apiKey ?? "" });
    const { tools } = await client.listTools();
    const openapi = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as any;
    const schemaOf = (name: string) =>
      tools.find((t) => t.name === name)?.inputSchema.properties as Record<string, any>;
    const parameter = (path: string, verb: string, name: string) =>
      openapi.paths[path][verb].parameters.find((p: { name: string }) => p.name === name).schema;
    const body = (path: string) => openapi.paths[path].post.requestBody.content["application/json"].schema.properties;
    expect(schemaOf("search_contacts").limit).toMatchObject({
      minimum: parameter("/api/contacts/search", "get", "limit").minimum,
      maximum: 50,
    });
    expect(schemaOf("search_contacts").query).toMatchObject({
      minLength: 1,
      maxLength: parameter("/api/contacts/search", "get", "q").maxLength,
    });
    const serviceRequest = body("/api/service-requests");
    expect(schemaOf("create_service_request").priority.enum).toEqual(serviceRequest.priority.enum);
    expect(schemaOf("create_service_request").description).toMatchObject({
      maxLength: serviceRequest.description.maxLength,
    });
    const emergencyTypes = parameter(
      "/api/service-requests/{service_request_id}/emergency",
      "post",
      "emergency_type",
    ).enum;
    expect(schemaOf("flag_emergency").emergency_type.enum.filter((v: unknown) => v !== null)).toEqual(emergencyTypes);
    expect(schemaOf("book_appointment").notes.maxLength).toBe(body("/api/scheduling/book").notes.maxLength);
    // Required as in REST, unless the tool fills the field itself.
    expect(tools.find((t) => t.name === "flag_emergency")?.inputSchema.required).toEqual(["service_request_id"]);
    expect(tools.find((t) => t.name === "reschedule_appointment")?.inputSchema.required).toEqual([
      "appointment_id",
      "start",
    ]);
    await client.close();
  });

  it("401 without a key or with a bad one; the key works as X-API-Key or a bearer token", async () => {
    const initialize = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    const post = (headers: Record<string, string>) =>
      fetch(`${baseUrl}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        body: initialize,
      });
    const refused: Record<string, string>[] = [
      {},
      { "x-api-key": "vo_not_a_key" },
      { authorization: "Bearer vo_not_a_key" },
      { authorization: "Basic abc" },
    ];
    for (const headers of refused) {
      const response = await post(headers);
      expect(response.status, JSON.stringify(headers)).toBe(401);
      expect(((await response.json()) as { detail: unknown }).detail).toEqual(expect.any(String));
    }
    await expect(connect({})).rejects.toThrow();
    const { owner } = await tenant();
    const ok = await post({ authorization: `Bearer ${owner.apiKey}` });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("ratelimit-limit")).toEqual(expect.any(String));
    const answer = await ok.json();
    expect(answer).toMatchObject({
      jsonrpc: "2.0",
      id: 1,
      result: { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "voiceops" } },
    });
    const client = await connect({ authorization: `Bearer ${owner.apiKey}` });
    expect((await client.callTool({ name: "get_business_hours", arguments: {} })).isError).toBeFalsy();
    await client.close();
  });

  it("malformed JSON-RPC is a 4xx or a JSON-RPC error, never a 5xx", async () => {
    const { owner } = await tenant();
    const headers = {
      "x-api-key": owner.apiKey ?? "",
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-06-18",
    };
    const bodies = [
      "{not json",
      "",
      "null",
      "42",
      '"text"',
      "{}",
      "[]",
      "[1, 2, 3]",
      '[{"jsonrpc": "2.0"}, "garbage"]',
      JSON.stringify({ jsonrpc: "1.0", id: 1, method: "tools/list" }),
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "no/such/method" }),
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call" }),
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "no_such_tool", arguments: {} } }),
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "lookup_caller", arguments: "phone" },
      }),
      JSON.stringify({ jsonrpc: "2.0", id: { nested: true }, method: "tools/list" }),
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "save_caller_memory", arguments: { phone_number: [[[[]]]], summary: { a: { b: {} } } } },
      }),
      JSON.stringify(Array.from({ length: 150 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "tools/list" }))),
      `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":${"[".repeat(5000)}${"]".repeat(5000)}}`,
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { padding: "x".repeat(1_100_000) } }),
    ];
    for (const body of bodies) {
      const response = await fetch(`${baseUrl}/mcp`, { method: "POST", headers, body });
      const text = await response.text();
      expect(response.status, `${body.slice(0, 80)} -> ${response.status} ${text.slice(0, 200)}`).toBeLessThan(500);
      // A JSON-RPC error, or (for a tool called with bad arguments) a tool result with isError.
      if (response.status === 200)
        expect(JSON.parse(text).error ?? JSON.parse(text).result?.isError, body.slice(0, 80)).toBeTruthy();
      else if (response.status !== 202) expect(response.status).toBeGreaterThanOrEqual(400);
    }
    const wrongType = await fetch(`${baseUrl}/mcp`, {
      method: "POST",
      headers: { ...headers, "content-type": "text/plain" },
      body: "{}",
    });
    expect(wrongType.status).toBe(415);
    const post = (body: unknown, extra: Record<string, string> = {}) =>
      fetch(`${baseUrl}/mcp`, { method: "POST", headers: { ...headers, ...extra }, body: JSON.stringify(body) });
    const list = { jsonrpc: "2.0", id: 7, method: "tools/list" };
    expect((await post(list, { accept: "application/json" })).status).toBe(406);
    const badVersion = await post(list, { "mcp-protocol-version": "1999-01-01" });
    expect(badVersion.status).toBe(400);
    expect(((await badVersion.json()) as { error: { message: string } }).error.message).toContain("1999-01-01");
    // A plain tools/call, which the transport answers on a path of its own, is refused the same way.
    const call = { jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "get_business_hours", arguments: {} } };
    const badVersionCall = await post(call, { "mcp-protocol-version": "1999-01-01" });
    expect(badVersionCall.status).toBe(400);
    expect(((await badVersionCall.json()) as { error: { message: string } }).error.message).toContain("1999-01-01");
    const answered = (await (await post(call)).json()) as { id: number; result?: { isError?: boolean } };
    expect(answered.id).toBe(8);
    expect(answered.result).toBeDefined();
    expect(answered.result?.isError).toBeFalsy();
    const notification = await post({ jsonrpc: "2.0", method: "notifications/initialized" });
    expect(notification.status).toBe(202);
    expect(await notification.text()).toBe("");
    const batch = await post([list, { jsonrpc: "2.0", id: "b", method: "ping" }]);
    expect(batch.status).toBe(200);
    expect(((await batch.json()) as { id: unknown }[]).map((answer) => answer.id)).toEqual([7, "b"]);
    const twoInitializes = await post([
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      },
      {
        jsonrpc: "2.0",
        id: 2,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      },
    ]);
    expect(twoInitializes.status).toBe(400);
    const get = await fetch(`${baseUrl}/mcp`, {
      headers: { "x-api-key": owner.apiKey ?? "", accept: "text/event-stream" },
    });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
  });

  it("answers tools/call as the SDK's Server does: its result shape, and its JSON-RPC errors", async () => {
    const { owner } = await tenant();
    const post = async (body: unknown) => {
      const response = await fetch(`${baseUrl}/mcp`, {
        method: "POST",
        headers: {
          "x-api-key": owner.apiKey ?? "",
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-06-18",
        },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(200);
      return (await response.json()) as {
        jsonrpc: string;
        id: unknown;
        result?: { content: { type: string; text: string }[]; structuredContent: unknown; isError?: boolean };
        error?: { code: number; message: string };
      };
    };
    const call = (id: unknown, params: unknown) => post({ jsonrpc: "2.0", id, method: "tools/call", params });

    const hours = await call("h-1", { name: "get_business_hours", arguments: {} });
    expect(hours.jsonrpc).toBe("2.0");
    expect(hours.id).toBe("h-1");
    expect(hours.result?.isError).toBeUndefined();
    expect(hours.result?.content).toEqual([{ type: "text", text: JSON.stringify(hours.result?.structuredContent) }]);
    // Arguments may be left out, as CallToolRequestSchema allows.
    expect((await call(2, { name: "get_business_hours" })).result?.structuredContent).toEqual(
      hours.result?.structuredContent,
    );
    const badArguments = await call(3, { name: "lookup_caller", arguments: { phone_number: 42 } });
    expect(badArguments.result?.isError).toBe(true);

    // The Server's own errors (in both modes): an unknown tool, and requests its schema refuses.
    const unknown = await call(4, { name: "no_such_tool", arguments: {} });
    expect(unknown.error?.code).toBe(-32602);
    expect(unknown.error?.message).toContain("no_such_tool");
    const notAnObject = await call(5, { name: "lookup_caller", arguments: "phone" });
    expect(notAnObject.error?.message).toContain("arguments");
    expect((await call(6, { arguments: {} })).error?.message).toContain("name");
  });

  it("answers each client its own requests: the same ids from two organizations at once, batches, abandoned calls", async () => {
    const tenants = await Promise.all([tenant(), tenant()]);
    const names = ["Ada Alpha", "Bea Beta"];
    await Promise.all(
      tenants.map(({ owner }, i) => owner.post("/api/contacts", { name: names[i], phone_number: `+1555019000${i}` })),
    );
    const post = (apiKey: string, body: unknown, signal?: AbortSignal) =>
      fetch(`${baseUrl}/mcp`, {
        method: "POST",
        headers: {
          "x-api-key": apiKey,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify(body),
        signal,
      });
    const search = (id: number | string, query: string) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "search_contacts", arguments: { query } },
    });
    type Answer = { id: unknown; result: { structuredContent: { contacts: { name: string }[] } } };
    const namesIn = (answer: Answer) => answer.result.structuredContent.contacts.map((contact) => contact.name);
    // A client that gives up on its call while the others are answered.
    const abandoned = new AbortController();
    const gone = post(tenants[0]?.owner.apiKey ?? "", search(1, "a"), abandoned.signal).catch(() => undefined);
    abandoned.abort();
    for (let round = 0; round < 5; round++) {
      const answers = await Promise.all(
        tenants.flatMap(({ owner }) =>
          [0, 1, 2].map(() =>
            post(owner.apiKey ?? "", [search(1, "a"), search("two", "zzz-nobody")]).then((res) => res.json()),
          ),
        ),
      );
      answers.forEach((batch, n) => {
        const [first, second] = batch as [Answer, Answer];
        expect(first.id).toBe(1);
        expect(namesIn(first)).toEqual([names[Math.floor(n / 3)]]);
        expect(second.id).toBe("two");
        expect(namesIn(second)).toEqual([]);
      });
    }
    await gone;
  });

  // The SDK's own transport (FAST_PATH without mcp) awaits the cancelled request's answer, which
  // never comes: the POST hangs until the client gives up.
  it.skipIf(!fastPath("mcp"))(
    "a request cancelled in its own POST is not awaited: the POST answers the rest, or 202",
    async () => {
      const { owner } = await tenant();
      const post = (body: unknown) =>
        fetch(`${baseUrl}/mcp`, {
          method: "POST",
          headers: {
            "x-api-key": owner.apiKey ?? "",
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(60_000),
        });
      const call = {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "get_business_hours", arguments: {} },
      };
      const cancel = {
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: 1, reason: "caller hung up" },
      };
      expect((await post([call, cancel])).status).toBe(202);
      const rest = await post([call, { jsonrpc: "2.0", id: 2, method: "tools/list" }, cancel]);
      expect(rest.status).toBe(200);
      // One answer left: sent alone, as the SDK's transport sends a batch's only answer.
      const answer = (await rest.json()) as { id: number; result: { tools: unknown[] } };
      expect(answer.id).toBe(2);
      expect(answer.result.tools.length).toBe(20);
    },
  );
});
