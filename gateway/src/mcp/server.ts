import type { NextFunction, Request, Response } from "express";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { API_VERSION } from "../health.js";
import { sendJson } from "../http/errors.js";
import { hashApiKey } from "../identity/keys.js";
import type { ToolCatalog } from "./catalog.js";

/** What the server tells the model about the tools as a whole (MCP's initialize instructions). */
const INSTRUCTIONS =
  "Tools of a service business (plumbing, HVAC, electrical...) for a voice agent on a live call. Start every call with lookup_caller and the caller's number: it says who is calling, what was said before, their open jobs and appointments, and whether they may be called. Answer questions from search_knowledge_base and get_business_hours; book with find_slots, hold_slot, book_appointment; open jobs with create_service_request (flag_emergency and dispatch_technician for danger); before the call ends, save_caller_memory. A result with isError lists each wrong argument and why: correct them and call again. Give write tools an idempotency_key (e.g. a UUID) and reuse it when retrying after a timeout.";

/** The largest JSON-RPC body accepted, as for the REST API's JSON bodies. */
const MAX_BODY_BYTES = 1024 * 1024;

/** MCP clients may send the API key as a bearer token (Authorization: Bearer <key>) instead of X-API-Key. */
export function bearerApiKey(req: Request, _res: Response, next: NextFunction): void {
  const authorization = req.headers.authorization;
  if (!req.apiKeyHash && authorization && /^bearer\s+/i.test(authorization)) {
    const key = authorization.replace(/^bearer\s+/i, "").trim();
    if (key !== "") req.apiKeyHash = hashApiKey(key);
  }
  next();
}

/**
 * The MCP endpoint (Streamable HTTP, stateless): each POST gets a server and a transport of its
 * own, as the SDK's stateless examples do, answering JSON (no session, no SSE stream). The
 * request is authenticated and rate limited before it gets here, like any /api request.
 * Malformed JSON-RPC is the transport's to refuse (400 with a JSON-RPC error).
 */
export function mcpEndpoint(catalog: ToolCatalog) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.method !== "POST") {
      // Stateless: no stream to open with GET, no session to end with DELETE.
      res.setHeader("Allow", "POST");
      return sendJson(res, 405, {
        jsonrpc: "2.0",
        error: { code: -32000, message: "Method not allowed: send JSON-RPC messages with POST (this server keeps no sessions)" },
        id: null,
      });
    }
    const principal = req.principal;
    if (!principal) return next(new Error("the MCP endpoint needs an authenticated request"));
    const server = new Server(
      { name: "voiceops", title: "Voice-assistant business operations", version: API_VERSION },
      { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
    );
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: catalog.list }));
    server.setRequestHandler(CallToolRequestSchema, (request) => catalog.call(request.params.name, request.params.arguments ?? {}, principal, req.requestId));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize: MAX_BODY_BYTES });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    server
      .connect(transport)
      .then(() => transport.handleRequest(req, res))
      .catch(next);
  };
}
