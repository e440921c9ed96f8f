import type { Response } from "express";
import type { ValidationEntry } from "./fastapi.js";

/**
 * A JSON answer with the headers Express's `res.json` gives it, written directly: Express's
 * `send` also looks for an ETag, freshness and a charset on every call, which API answers never
 * use. A HEAD request gets the headers alone (Node drops the body).
 */
export function sendJson(res: Response, status: number, body: unknown): void {
  sendJsonText(res, status, JSON.stringify(body));
}

/** A JSON answer whose JSON text is already written (sendJson's headers). */
export function sendJsonText(res: Response, status: number, text: string): void {
  jsonHead(res, status, Buffer.byteLength(text));
  res.end(text);
}

/** A JSON answer already written as bytes (sendJson's headers). */
export function sendJsonBytes(res: Response, status: number, json: Uint8Array): void {
  jsonHead(res, status, json.length);
  res.end(json);
}

function jsonHead(res: Response, status: number, length: number): void {
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Content-Length", length);
}

/** `{"detail": "..."}` for 401, 403, 404, 409, 429 and 5xx. */
export function sendDetail(res: Response, status: number, detail: string): void {
  sendJson(res, status, { detail });
}

/** FastAPI's HTTPValidationError: `{"detail": [{loc, msg, type}, ...]}`. */
export function sendValidation(res: Response, entries: ValidationEntry[]): void {
  sendJson(res, 422, { detail: entries });
}
