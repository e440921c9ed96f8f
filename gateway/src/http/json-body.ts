import express, { type NextFunction, type Request, type RequestHandler, type Response } from "express";
import { sendValidation } from "../errors/index.js";

/** Deepest nesting of arrays and objects a request body may have. */
export const MAX_JSON_DEPTH = 64;

/** Whether a parsed JSON value nests deeper than `max` (walked without recursion). */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (typeof current !== "object" || current === null) continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** JSON body parsing with a size limit and a nesting limit (422 past it, like any bad JSON). */
export function jsonBody(limit: string): RequestHandler[] {
  return [
    express.json({ limit }),
    (req: Request, res: Response, next: NextFunction) => {
      if (nestsDeeperThan(req.body, MAX_JSON_DEPTH)) {
        return sendValidation(res, [
          { loc: ["body"], msg: `JSON nested more than ${MAX_JSON_DEPTH} levels deep`, type: "json_invalid" },
        ]);
      }
      next();
    },
  ];
}
