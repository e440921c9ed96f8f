import type { Request, Response } from "express";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import {
  ErrorCode,
  isInitializeRequest,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type MessageExtraInfo,
  type RequestId,
  type Result,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import { sendJson, sendJsonText } from "../errors/index.js";
import { plainToolCall } from "./plain-call.js";
import { messageJson } from "./tool-result.js";

/** The most messages one batch may hold (as the SDK's Streamable HTTP transport allows). */
const MAX_BATCH = 100;

/** JSON-RPC's answer to a request that is refused before any message is read. */
export function sendRpcError(res: Response, status: number, code: number, message: string): void {
  sendJson(res, status, { jsonrpc: "2.0", error: { code, message }, id: null });
}

// Each of JSONRPCMessageSchema's kinds is a strict object, so once a message has passed it, its
// keys tell its kind: the SDK's is* guards would parse it again, each time.
const isRequest = (message: JSONRPCMessage): message is JSONRPCRequest => "method" in message && "id" in message;
const isNotification = (message: JSONRPCMessage): message is JSONRPCNotification =>
  "method" in message && !("id" in message);
const isInitialize = (message: JSONRPCMessage): boolean =>
  isRequest(message) && message.method === "initialize" && isInitializeRequest(message);

/** The answer to a request whose direct answer failed. */
const INTERNAL_ERROR = { code: ErrorCode.InternalError, message: "Internal error" };

/** Whether the request's MCP-Protocol-Version, when it has one, is supported; if not, it is refused. */
function supportedVersion(req: Request, res: Response): boolean {
  const version = req.headers["mcp-protocol-version"];
  if (typeof version !== "string" || SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return true;
  sendRpcError(
    res,
    400,
    -32000,
    `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`,
  );
  return false;
}

/**
 * Requests the endpoint answers itself instead of the server: an answer, or undefined to hand
 * the request to the server. An answer that fails is sent as JSON-RPC's internal error.
 */
export type DirectRequests = (request: JSONRPCRequest, extra: MessageExtraInfo) => Promise<Result> | undefined;

/** One POST's requests: the ids the client awaits answers to, and the answers so far. */
interface Exchange {
  res: Response;
  awaited: RequestId[];
  answers: Map<RequestId, JSONRPCMessage>;
  open: boolean;
}

/**
 * The stateless Streamable HTTP transport in JSON mode, through the SDK's public Transport
 * interface, for one server that serves every POST: each POST's messages go to the server with
 * the caller's AuthInfo (MessageExtraInfo), its requests under ids of the transport's own (two
 * clients may both send id 1), and the answers come back as one JSON answer to their POST (202
 * when there is nothing to answer). A server built per request, as the SDK's stateless examples
 * do, costs about 120 µs to build. It keeps the checks of the SDK's own transport (Accept,
 * Content-Type, batch size, message shape, one initialize, protocol version) with the same
 * statuses and JSON-RPC errors, without converting each request and answer to web-standard
 * objects, which cost the stock transport about twice the CPU per call.
 */
export class JsonResponseTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  private lastId = 0;
  /** Each request in flight: its POST and the id its client gave it. */
  private readonly inFlight = new Map<RequestId, { exchange: Exchange; id: RequestId }>();

  constructor(private readonly direct?: DirectRequests) {}

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.inFlight.clear();
    this.onclose?.();
  }

  /** Answers go to their POST; the server's notifications and requests have no stream to go to. */
  async send(message: JSONRPCMessage): Promise<void> {
    if (!("id" in message) || "method" in message || message.id === undefined) return;
    const route = this.inFlight.get(message.id);
    if (!route) return;
    this.inFlight.delete(message.id);
    const { exchange, id } = route;
    if (!exchange.open || exchange.answers.has(id)) return;
    exchange.answers.set(id, { ...message, id });
    this.settle(exchange);
  }

  /** Answers a POST once each request it still awaits has its answer: 202 when none is awaited. */
  private settle(exchange: Exchange): void {
    if (!exchange.open || !exchange.awaited.every((id) => exchange.answers.has(id))) return;
    exchange.open = false;
    if (exchange.awaited.length === 0) {
      exchange.res.status(202).end();
      return;
    }
    const answers = exchange.awaited.map((id) => messageJson(exchange.answers.get(id) as JSONRPCMessage));
    sendJsonText(exchange.res, 200, answers.length === 1 ? (answers[0] as string) : `[${answers.join(",")}]`);
  }

  /**
   * Checks one POST and hands its messages to the connected server (its requests that `direct`
   * answers excepted), as the caller `authInfo` says.
   */
  handle(req: Request, res: Response, body: unknown, authInfo: AuthInfo): void {
    const accept = req.headers.accept;
    if (!accept?.includes("application/json") || !accept.includes("text/event-stream"))
      return sendRpcError(
        res,
        406,
        -32000,
        "Not Acceptable: Client must accept both application/json and text/event-stream",
      );
    // A body was read only if it was JSON (mcpBody): the type is asked only of a request without one.
    if (body === undefined) {
      if (!req.is("application/json"))
        return sendRpcError(res, 415, -32000, "Unsupported Media Type: Content-Type must be application/json");
      return sendRpcError(res, 400, -32700, "Parse error: Invalid JSON");
    }
    // One plain tools/call, nearly every POST, that `direct` answers: its answer goes straight to
    // the POST, without the ids, maps and listener a batch needs.
    if (!Array.isArray(body) && this.direct) {
      const call = plainToolCall(body);
      if (call) {
        if (!supportedVersion(req, res)) return;
        const answer = this.direct(call, { authInfo });
        if (answer) {
          const reply = (message: JSONRPCMessage) => sendJsonText(res, 200, messageJson(message));
          void answer.then(
            (result) => reply({ jsonrpc: "2.0", id: call.id, result }),
            () => reply({ jsonrpc: "2.0", id: call.id, error: INTERNAL_ERROR }),
          );
          return;
        }
      }
    }
    if (Array.isArray(body) && body.length > MAX_BATCH)
      return sendRpcError(res, 400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH} messages`);
    const messages: JSONRPCMessage[] = [];
    for (const raw of Array.isArray(body) ? body : [body]) {
      const plain = plainToolCall(raw);
      if (plain) {
        messages.push(plain);
        continue;
      }
      const parsed = JSONRPCMessageSchema.safeParse(raw);
      if (!parsed.success) return sendRpcError(res, 400, -32700, "Parse error: Invalid JSON-RPC message");
      messages.push(parsed.data);
    }
    if (messages.some(isInitialize)) {
      if (messages.length > 1)
        return sendRpcError(res, 400, -32600, "Invalid Request: Only one initialization request is allowed");
    } else if (!supportedVersion(req, res)) return;
    const exchange: Exchange = {
      res,
      awaited: [...new Set(messages.filter(isRequest).map((m) => m.id))],
      answers: new Map(),
      open: true,
    };
    /** The transport's id of each of this POST's requests, by the client's (the first, for a repeated id). */
    const ours = new Map<RequestId, number>();
    const extra: MessageExtraInfo = { authInfo };
    for (const message of messages) {
      if (isRequest(message)) {
        const id = ++this.lastId;
        this.inFlight.set(id, { exchange, id: message.id });
        if (!ours.has(message.id)) ours.set(message.id, id);
        const answer = this.direct?.(message, extra);
        if (answer)
          void answer.then(
            (result) => this.send({ jsonrpc: "2.0", id, result }),
            () => this.send({ jsonrpc: "2.0", id, error: INTERNAL_ERROR }),
          );
        else this.onmessage?.({ ...message, id }, extra);
      } else if (isNotification(message)) {
        // A cancellation names a request of this POST by the client's id (any other is not this
        // client's); the server answers a cancelled request with nothing, so the POST stops awaiting it.
        if (message.method === "notifications/cancelled") {
          const clientId = message.params?.requestId as RequestId;
          const id = ours.get(clientId);
          if (id === undefined) continue;
          exchange.awaited = exchange.awaited.filter((awaited) => awaited !== clientId);
          this.inFlight.delete(id);
          this.onmessage?.({ ...message, params: { ...message.params, requestId: id } }, extra);
        } else this.onmessage?.(message, extra);
      }
      // A response has no request of the server's to answer: it sends none.
    }
    this.settle(exchange);
    if (!exchange.open) return;
    // A client that goes away before its answer cancels its requests; the server then answers none.
    res.on("close", () => {
      if (!exchange.open) return;
      exchange.open = false;
      for (const id of new Set(ours.values())) {
        this.inFlight.delete(id);
        this.onmessage?.({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } }, extra);
      }
    });
  }
}
