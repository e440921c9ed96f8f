import type { NextFunction, Request, Response } from "express";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  type CallToolResult,
  CallToolRequestSchema,
  type JSONRPCRequest,
  ListToolsRequestSchema,
  type MessageExtraInfo,
} from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { fastPath } from "@voiceops/platform";
import { API_VERSION } from "../health.js";
import { hashApiKey } from "../identity/keys.js";
import type { Principal } from "../identity/store.js";
import type { ToolCatalog } from "./catalog.js";
import { plainToolCall } from "./plain-call.js";
import { JsonResponseTransport, sendRpcError } from "./transport.js";

/** What the server tells the model about the tools as a whole (MCP's initialize instructions). */
const INSTRUCTIONS =
  "Tools of a service business (plumbing, HVAC, electrical...) for a voice agent on a live call. Start every call with lookup_caller and the caller's number: it says who is calling, what was said before, their open jobs and appointments, and whether they may be called. Answer questions from search_knowledge_base and get_business_hours; book with find_slots, hold_slot, book_appointment; open jobs with create_service_request (flag_emergency and dispatch_technician for danger); before the call ends, save_caller_memory. A result with isError lists each wrong argument and why: correct them and call again. Give write tools an idempotency_key (e.g. a UUID) and reuse it when retrying after a timeout.";

const validator = new AjvJsonSchemaValidator();

/** MCP clients may send the API key as a bearer token (Authorization: Bearer <key>) instead of X-API-Key. */
export function bearerApiKey(req: Request, _res: Response, next: NextFunction): void {
  const authorization = req.headers.authorization;
  if (!req.apiKeyHash && authorization && /^bearer\s+/i.test(authorization)) {
    const key = authorization.replace(/^bearer\s+/i, "").trim();
    if (key !== "") req.apiKeyHash = hashApiKey(key);
  }
  next();
}

/** Who a tool call is for: the authenticated caller and the request's id (AuthInfo's extra). */
interface Caller {
  principal: Principal;
  requestId: string;
}

/** The caller a request of the shared server carries as its AuthInfo's extra (mcpEndpoint). */
const callerOf = (extra: { authInfo?: AuthInfo }): Caller | undefined =>
  extra.authInfo?.extra as unknown as Caller | undefined;

/** An MCP server of the tools; `callerFor` says whom a request is for. */
function toolServer(catalog: ToolCatalog, callerFor: (extra: { authInfo?: AuthInfo }) => Caller): Server {
  const server = new Server(
    { name: "voiceops", title: "Voice-assistant business operations", version: API_VERSION },
    // One validator for every server: each would otherwise build an Ajv of its own.
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS, jsonSchemaValidator: validator },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: catalog.list }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const { principal, requestId } = callerFor(extra);
    return catalog.call(request.params.name, request.params.arguments ?? {}, principal, requestId);
  });
  return server;
}

/**
 * A call of a listed tool, answered without the SDK's request dispatch (the fast path's `mcp`
 * part): the request is checked by plainToolCall when it has the plain shape, by the SDK's own
 * CallToolRequestSchema otherwise, as its Server checks it; then the catalog runs the tool,
 * whose result is a CallToolResult by construction (the Server would check it again). The
 * dispatch, its other schema checks (three to tell the message's kind, one of the result) and
 * an AbortController per request cost about 75 µs a call, 13% of a search_contacts call
 * (docs/mcp.md, Cost). Anything else (a task-augmented call, an unknown tool, a malformed
 * request, every other method) is the Server's, which answers as it always has.
 */
function directToolCall(
  catalog: ToolCatalog,
  request: JSONRPCRequest,
  extra: MessageExtraInfo,
): Promise<CallToolResult> | undefined {
  if (request.method !== "tools/call") return undefined;
  let params = plainToolCall(request)?.params;
  if (!params) {
    const parsed = CallToolRequestSchema.safeParse(request);
    if (!parsed.success || parsed.data.params.task !== undefined) return undefined;
    params = parsed.data.params;
  }
  const caller = callerOf(extra);
  if (!caller || !catalog.has(params.name)) return undefined;
  return catalog.call(params.name, params.arguments ?? {}, caller.principal, caller.requestId);
}

/**
 * The MCP endpoint (Streamable HTTP, stateless, JSON answers: no session, no SSE stream). The
 * request is authenticated and rate limited before it gets here, like any /api request, and
 * malformed JSON-RPC is the transport's to refuse (400 with a JSON-RPC error).
 *
 * With the fast path's `mcp` part, one server and one JsonResponseTransport (transport.ts) serve
 * every POST, each request carrying its caller as AuthInfo. Without it, each POST gets a server
 * and the SDK's StreamableHTTPServerTransport of its own, as the SDK's stateless examples do.
 */
export function mcpEndpoint(catalog: ToolCatalog) {
  let shared: JsonResponseTransport | undefined;
  const sharedTransport = (): JsonResponseTransport => {
    if (!shared) {
      shared = new JsonResponseTransport((request, extra) => directToolCall(catalog, request, extra));
      void toolServer(catalog, (extra) => callerOf(extra) as Caller).connect(shared);
    }
    return shared;
  };
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.method !== "POST") {
      // Stateless: no stream to open with GET, no session to end with DELETE.
      res.setHeader("Allow", "POST");
      return sendRpcError(
        res,
        405,
        -32000,
        "Method not allowed: send JSON-RPC messages with POST (this server keeps no sessions)",
      );
    }
    const principal = req.principal;
    if (!principal) return next(new Error("the MCP endpoint needs an authenticated request"));
    const caller: Caller = { principal, requestId: req.requestId };
    if (fastPath("mcp")) {
      const authInfo: AuthInfo = {
        token: "",
        clientId: principal.orgId,
        scopes: [principal.role],
        extra: { ...caller },
      };
      return sharedTransport().handle(req, res, req.body, authInfo);
    }
    const server = toolServer(catalog, () => caller);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    // A client that goes away before its answer ends the server's work; an answered request
    // leaves nothing running to close.
    res.on("close", () => {
      if (res.writableFinished) return;
      void transport.close();
      void server.close();
    });
    server
      .connect(transport)
      .then(() => transport.handleRequest(req, res, req.body))
      .catch(next);
  };
}
