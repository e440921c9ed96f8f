import type { Response } from "express";
import type { ValidationEntry } from "./fastapi-errors.js";

/** `{"detail": "..."}` for 401, 403, 404, 409, 429 and 5xx. */
export function sendDetail(res: Response, status: number, detail: string): void {
  res.status(status).json({ detail });
}

/** FastAPI's HTTPValidationError: `{"detail": [{loc, msg, type}, ...]}`. */
export function sendValidation(res: Response, entries: ValidationEntry[]): void {
  res.status(422).json({ detail: entries });
}
