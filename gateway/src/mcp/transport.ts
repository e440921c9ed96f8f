import type { Request, Response } from "express";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  isInitializeRequest,
  isJSONRPCRequest,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import { sendJson } from "../errors/index.js";

/** The most messages one batch may hold (as the SDK's Streamable HTTP transport allows). */
const MAX_BATCH = 100;

/** JSON-RPC's answer to a request that is refused before any message is read. */
export function sendRpcError(res: Response, status: number, code: number, message: string): void {
  sendJson(res, status, { jsonrpc: "2.0", error: { code, message }, id: null });
}

/**
 * One POST of the stateless Streamable HTTP transport in JSON mode, through the SDK's public
 * Transport interface: the parsed body's messages go to the server, its answers to them come
 * back as one JSON answer (202 when there is nothing to answer). It keeps the checks of the SDK's
 * own transport (Accept, Content-Type, batch size, message shape, one initialize, protocol
 * version) with the same statuses and JSON-RPC errors, without converting each request and
 * answer to web-standard objects, which cost the stock transport about twice the CPU per call.
 */
export class JsonResponseTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly answers = new Map<RequestId, JSONRPCMessage>();
  private awaited: RequestId[] = [];
  private closed = false;

  constructor(private readonly res: Response) {}

  async start(): Promise<void> {}

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }

  /**
   * Answers to the request's messages are kept; the server's notifications have no stream to go
   * to, and a closed transport's client is gone.
   */
  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed || !("id" in message) || "method" in message || message.id === undefined) return;
    if (!this.awaited.includes(message.id)) return;
    this.answers.set(message.id, message);
    if (this.answers.size < this.awaited.length || this.res.headersSent) return;
    const answers = this.awaited.map((id) => this.answers.get(id));
    sendJson(this.res, 200, answers.length === 1 ? answers[0] : answers);
  }

  /** Checks the request and hands its messages to the connected server. */
  handle(req: Request, body: unknown): void {
    const res = this.res;
    const accept = req.headers.accept;
    if (!accept?.includes("application/json") || !accept.includes("text/event-stream"))
      return sendRpcError(
        res,
        406,
        -32000,
        "Not Acceptable: Client must accept both application/json and text/event-stream",
      );
    if (!req.is("application/json"))
      return sendRpcError(res, 415, -32000, "Unsupported Media Type: Content-Type must be application/json");
    if (body === undefined) return sendRpcError(res, 400, -32700, "Parse error: Invalid JSON");
    if (Array.isArray(body) && body.length > MAX_BATCH)
      return sendRpcError(res, 400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH} messages`);
    const messages: JSONRPCMessage[] = [];
    for (const raw of Array.isArray(body) ? body : [body]) {
      const parsed = JSONRPCMessageSchema.safeParse(raw);
      if (!parsed.success) return sendRpcError(res, 400, -32700, "Parse error: Invalid JSON-RPC message");
      messages.push(parsed.data);
    }
    if (messages.some(isInitializeRequest)) {
      if (messages.length > 1)
        return sendRpcError(res, 400, -32600, "Invalid Request: Only one initialization request is allowed");
    } else {
      const version = req.headers["mcp-protocol-version"];
      if (typeof version === "string" && !SUPPORTED_PROTOCOL_VERSIONS.includes(version))
        return sendRpcError(
          res,
          400,
          -32000,
          `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`,
        );
    }
    this.awaited = [...new Set(messages.filter(isJSONRPCRequest).map((m) => m.id))];
    for (const message of messages) this.onmessage?.(message);
    if (this.awaited.length === 0) res.status(202).end();
  }
}
