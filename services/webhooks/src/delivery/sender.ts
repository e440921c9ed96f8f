import { Agent, request } from "undici";
import { checkedLookup } from "./address-check.js";

// One HTTP attempt of a delivery: a POST with the signed body, at most 15 s, no redirect
// followed, the answer's body read up to 1 KB for the log.

const TIMEOUT_MS = 15_000;
const BODY_LOG_BYTES = 1_024;

interface SendOutcome {
  status: number | null;
  body: string | null;
  error: string | null;
  retryAfter: string | undefined;
  durationMs: number;
}

/** The connection pool of a worker: every socket's address is checked as it connects. */
export function deliveryAgent(allowPrivate: boolean): Agent {
  return new Agent({
    connect: { lookup: checkedLookup(allowPrivate), timeout: TIMEOUT_MS },
    headersTimeout: TIMEOUT_MS,
    bodyTimeout: TIMEOUT_MS,
    maxRedirections: 0,
    keepAliveTimeout: 10_000,
    connections: 64,
  });
}

async function readHead(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= BODY_LOG_BYTES) break;
  }
  // Leaving the loop early closes the stream; what is left is never read.
  body.destroy();
  return Buffer.concat(chunks).subarray(0, BODY_LOG_BYTES).toString("utf8");
}

function errorText(error: unknown): string {
  const code = (error as { code?: string }).code;
  if (
    (error as { name?: string }).name === "TimeoutError" ||
    code === "UND_ERR_HEADERS_TIMEOUT" ||
    code === "UND_ERR_BODY_TIMEOUT"
  )
    return "timed out after 15 s";
  if (code === "EADDRREFUSED") return "the endpoint's address is not allowed";
  const message = error instanceof Error ? error.message : String(error);
  return code ? `${code}: ${message}`.slice(0, 500) : message.slice(0, 500);
}

export async function sendAttempt(
  agent: Agent,
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<SendOutcome> {
  const started = performance.now();
  try {
    const response = await request(url, {
      method: "POST",
      dispatcher: agent,
      headers: { "content-type": "application/json", "user-agent": "voiceops-webhooks/1", ...headers },
      body,
      signal: AbortSignal.timeout(TIMEOUT_MS),
      maxRedirections: 0,
    });
    const text = await readHead(response.body).catch(() => "");
    const retryAfter = response.headers["retry-after"];
    return {
      status: response.statusCode,
      body: text,
      error: null,
      retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
      durationMs: Math.round(performance.now() - started),
    };
  } catch (error) {
    return {
      status: null,
      body: null,
      error: errorText(error),
      retryAfter: undefined,
      durationMs: Math.round(performance.now() - started),
    };
  }
}
