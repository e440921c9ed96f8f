import express, { type NextFunction, type Request, type RequestHandler, type Response } from "express";
import { fastPath } from "@voiceops/platform";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../http/json-body.js";
import { sendRpcError } from "./transport.js";

/** The largest /mcp body, in bytes. */
const LIMIT_BYTES = 1024 * 1024;

/** `application/json`, bare or with a UTF-8 charset: the Content-Type MCP clients send. */
const PLAIN_JSON_TYPE = /^application\/json\s*(?:;\s*charset\s*=\s*(?:utf-8|"utf-8")\s*)?$/i;

/** An error of reading a body, as body-parser names its kinds (mcpBodyErrors answers each). */
const bodyError = (type: string) => Object.assign(new Error(type), { type });

/**
 * Reads a body of the plain kind nearly every MCP request has (a Content-Length, no
 * Content-Encoding, `application/json` in UTF-8) in a few lines: express.json spends more per
 * request on the general case (a parsed media type and charset, a decoder stream, a compressed
 * body) than on the JSON (docs/mcp.md, Cost). It reads it as express.json would: the same size
 * limit, an empty body as {}, a byte-order mark skipped, only an object or array at the top.
 * Any other body is express.json's. Part of the fast path's `mcp` part (without it, express.json
 * reads every body).
 */
export function plainJsonBody(fallback: RequestHandler): RequestHandler {
  return (req, res, next) => {
    const { "content-length": length, "content-encoding": encoding, "content-type": type } = req.headers;
    if (
      length === undefined ||
      (encoding !== undefined && encoding !== "identity") ||
      !PLAIN_JSON_TYPE.test(type ?? "")
    )
      return fallback(req, res, next);
    if (Number(length) > LIMIT_BYTES) return next(bodyError("entity.too.large"));
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("error", next);
    req.on("end", () => {
      let text = (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString("utf8");
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      if (text === "") {
        req.body = {};
        return next();
      }
      const first = /\S/.exec(text)?.[0];
      if (first !== "{" && first !== "[") return next(bodyError("entity.parse.failed"));
      try {
        req.body = JSON.parse(text);
      } catch {
        return next(bodyError("entity.parse.failed"));
      }
      next();
    });
  };
}

/**
 * The body, read as the REST API reads JSON (size and nesting limits), handed to the transport
 * parsed; what cannot be read is a JSON-RPC error (never the REST API's 422). A body of another
 * content type is left for the transport to refuse (415).
 */
export function mcpBody(): RequestHandler[] {
  const library = express.json({ limit: LIMIT_BYTES });
  return [
    fastPath("mcp") ? plainJsonBody(library) : library,
    (req: Request, res: Response, next: NextFunction) => {
      if (nestsDeeperThan(req.body, MAX_JSON_DEPTH))
        return sendRpcError(res, 400, -32600, `Invalid Request: JSON nested more than ${MAX_JSON_DEPTH} levels deep`);
      next();
    },
  ];
}

/** Errors of reading an /mcp body, as JSON-RPC errors. */
export function mcpBodyErrors(error: unknown, _req: Request, res: Response, next: NextFunction): void {
  const type = (error as { type?: string } | undefined)?.type;
  if (type === "entity.parse.failed") return sendRpcError(res, 400, -32700, "Parse error: Invalid JSON");
  if (type === "entity.too.large")
    return sendRpcError(res, 413, -32600, "Invalid Request: the body is larger than 1 MB");
  if (type === "encoding.unsupported" || type === "charset.unsupported")
    return sendRpcError(res, 415, -32600, "Invalid Request: unsupported body encoding");
  next(error);
}
