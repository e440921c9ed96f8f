/**
 * Hand-written replacements for stock library code on the hot path, each kept because
 * `npm run bench` measured it more than 15% cheaper than the stock part it stands in for
 * (docs/performance-stock-vs-fast.md has the figures), and each written on public APIs only:
 *
 * - `rpc`: unary Connect calls between components over HTTP/1.1, framed and parsed here
 *   (connect-http1-client.ts, connect-http1-server.ts, unary-call.ts). Stock: Connect's own
 *   `createConnectTransport` and `connectNodeAdapter`.
 * - `local`: calls to a service in the same process straight into its handlers, through the
 *   same interceptors (local-transport.ts). Stock: Connect's `createRouterTransport`.
 * - `pglite`: PGlite statements prepared once and run through the wire protocol
 *   (pglite-statements.ts, pglite-protocol.ts, pglite-transaction.ts), transactions run in
 *   batches (pglite-batches.ts). Stock: PGlite's `query`, `exec` and `transaction`.
 * - `mcp`: the MCP endpoint's stateless JSON transport (gateway/src/mcp/transport.ts), on the
 *   SDK's public Transport interface, one server for every POST; a well-formed call of a listed
 *   tool goes straight to the tool catalog (mcp/server.ts directToolCall). Stock: a server and
 *   the SDK's StreamableHTTPServerTransport per POST, every request through the server.
 * - `express`: the gateway's requests and responses born with the Express app's prototypes
 *   (express-prototypes.ts), so Express does not change them on arrival. Stock: Node's own
 *   classes, which Express re-prototypes.
 * - `utf8`: protobuf-es writes strings with Buffer.from (utf8-encoder.ts), set through its
 *   configureTextEncoding by every service and gateway as it starts. Stock: TextEncoder.
 * - `json-answers`: the gateway's calls over `rpc` ask the service for the REST API's JSON
 *   instead of protobuf, and send it on as it comes (json-answer.ts). Stock: the answer in
 *   protobuf, decoded by the gateway and written again as JSON.
 *
 * FAST_PATH chooses: `all` (the default), `none` (every stock part: what CI runs the suite
 * under a third time), or a comma-separated list of the parts above. The choice is the
 * process's, read once here: tests build servers, transports and databases directly, and under
 * FAST_PATH=none they too must get the stock parts.
 */
import { ConfigError } from "../config.js";
import { useNodeUtf8Encoder } from "./utf8-encoder.js";

export const FAST_PATH_PARTS = ["rpc", "local", "pglite", "mcp", "express", "utf8", "json-answers"] as const;
type FastPathPart = (typeof FAST_PATH_PARTS)[number];

/** The parts FAST_PATH turns on; throws ConfigError for a value that is not `all`, `none` or a list of parts. */
export function readFastPath(env: Record<string, string | undefined>): ReadonlySet<FastPathPart> {
  const raw = (env.FAST_PATH ?? "").trim();
  if (raw === "" || raw === "all") return new Set(FAST_PATH_PARTS);
  if (raw === "none") return new Set();
  const parts = raw.split(",").map((part) => part.trim());
  for (const part of parts) {
    if (!(FAST_PATH_PARTS as readonly string[]).includes(part)) {
      throw new ConfigError(
        "FAST_PATH",
        `must be all, none or a comma-separated list of ${FAST_PATH_PARTS.join(", ")}, got "${raw}"`,
      );
    }
  }
  return new Set(parts as FastPathPart[]);
}

let chosen: ReadonlySet<FastPathPart> | undefined;

/** Whether this process runs the hand-written part (FAST_PATH) instead of the stock one. */
export function fastPath(part: FastPathPart): boolean {
  chosen ??= readFastPath(process.env);
  return chosen.has(part);
}

export { connectUnaryTransport, CLIENT_IDLE_MS } from "./connect-http1-client.js";
export { connectUnaryHandler } from "./connect-http1-server.js";
export { collectImplementations, localTransport } from "./local-transport.js";
export { appServerClasses, type AppPrototypes, type ServerClasses } from "./express-prototypes.js";
export { useNodeUtf8Encoder } from "./utf8-encoder.js";
export { JSON_ANSWER_HEADER, JSON_ANSWER_TYPE, JsonAnswer, jsonAnswerBytes } from "./json-answer.js";

/**
 * Whether the gateway asks services for their answers as REST JSON: only the fast path's own
 * client (`rpc`) takes such an answer, so both parts must be on.
 */
export function asksForJsonAnswers(): boolean {
  return fastPath("rpc") && fastPath("json-answers");
}

/** Sets the process's protobuf text encoding as FAST_PATH chooses (the `utf8` part), once it starts. */
export function configureProtobufTextEncoding(): void {
  if (fastPath("utf8")) useNodeUtf8Encoder();
}
