import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ValidationEntry } from "../errors/index.js";

/**
 * A tool call that failed the way a REST request fails: the status and `detail` the REST API
 * would answer. It becomes a tool result with isError (never a protocol error), so the model
 * reads what went wrong and can correct its arguments.
 */
export class ToolFailure extends Error {
  constructor(
    readonly status: number,
    readonly detail: string | ValidationEntry[],
  ) {
    super(typeof detail === "string" ? detail : "invalid arguments");
  }
}

const STATUS_WORDS: Record<number, string> = {
  401: "Not authenticated",
  403: "Not allowed",
  404: "Not found",
  409: "Conflict",
  422: "Invalid arguments",
  429: "Too many requests",
};

/** One line per problem: the argument's path and the message, as the REST API words them. */
function problemLines(detail: string | ValidationEntry[]): string[] {
  if (typeof detail === "string") return [detail];
  return detail.map((entry) => `- ${entry.loc.length > 0 ? entry.loc.join(".") : "(arguments)"}: ${entry.msg}`);
}

/**
 * The isError result of a failure: a sentence per problem for the model, then the REST API's
 * error body as JSON (`{"status", "detail"}`, detail being the HTTPValidationError entries for
 * invalid arguments, with loc the argument's path). No structuredContent: it would have to
 * match the tool's output schema.
 */
export function failureResult(failure: ToolFailure): CallToolResult {
  const heading = `${STATUS_WORDS[failure.status] ?? (failure.status >= 500 ? "Server error" : "Error")} (HTTP ${failure.status})`;
  const lines = problemLines(failure.detail);
  const text = typeof failure.detail === "string" ? `${heading}: ${lines[0]}` : `${heading}:\n${lines.join("\n")}`;
  return {
    isError: true,
    content: [
      { type: "text", text },
      { type: "text", text: JSON.stringify({ status: failure.status, detail: failure.detail }) },
    ],
  };
}

/** The field of an RPC's answer that its REST route answers with; missing, it is a fault of ours. */
export function present<T>(value: T | undefined): T {
  if (value === undefined) throw new ToolFailure(500, "Internal server error");
  return value;
}
