import { pino, type Logger } from "pino";
import pretty from "pino-pretty";
import { isDatabaseError } from "./db/database.js";

export type { Logger };

/** Fields of an error that are safe to log: they name what failed, never the data involved. */
const SAFE_FIELDS = [
  "code",
  "severity",
  "constraint",
  "table",
  "column",
  "schema",
  "dataType",
  "routine",
  "syscall",
  "errno",
] as const;

/**
 * An error as a log line shows it: its type, message, stack, code and the names of what failed.
 * Never its data: PostgreSQL errors carry the statement's parameters (PGlite's `params`), the
 * failing row (`detail`: "Key (phone)=(+1555...) already exists") and the client object; data
 * exceptions quote the bad value in their message. None of that is logged.
 */
function serializeError(value: unknown, depth = 0): unknown {
  if (!(value instanceof Error) && (typeof value !== "object" || value === null)) return value;
  const error = value as Error & Record<string, unknown>;
  const out: Record<string, unknown> = {
    type: error.constructor?.name ?? "Error",
    message: String(error.message ?? ""),
  };
  if (isDatabaseError(error)) {
    // Class 22 (data exception) messages end with the offending value: `... for type uuid: "abc"`.
    if (String(error.code).startsWith("22")) out.message = String(out.message).replace(/: ".*"$/s, ': "…"');
  }
  for (const field of SAFE_FIELDS) {
    const v = error[field];
    if (typeof v === "string" || typeof v === "number") out[field] = v;
  }
  if (typeof error.stack === "string")
    out.stack = error.stack.replace(String(error.message ?? ""), String(out.message));
  if (error.cause !== undefined && depth < 3) out.cause = serializeError(error.cause, depth + 1);
  return out;
}

/**
 * Log lines leave the process in writes of at least this many bytes (or every LOG_FLUSH_MS, and
 * at exit), not one write each: a write per request line cost a server a thread-pool hand-off
 * (and, on a busy core, its neighbours a context switch) each, 4-11% of a distributed write's
 * CPU. A process killed outright (SIGKILL) loses at most the last LOG_FLUSH_MS of lines.
 */
const LOG_WRITE_BYTES = 8192;
const LOG_FLUSH_MS = 250;

/** How log lines look: JSON for machines; pretty for a person at a terminal; auto picks by stdout. */
type LogFormat = "json" | "pretty" | "auto";

/** Whether lines are printed for a person: asked for, or (auto) stdout is a terminal. */
function isPrettyLog(format: LogFormat): boolean {
  return format === "pretty" || (format === "auto" && process.stdout.isTTY === true);
}

/** Human lines: local time, level in colour (where the terminal takes colour), no pid/hostname. */
function prettyDestination(): pino.DestinationStream {
  return pretty({ translateTime: "SYS:HH:MM:ss.l", ignore: "pid,hostname", destination: 1, sync: false });
}

/** One logger per process (JSON, or pretty lines; see LogFormat); components take children of it. */
export function createLogger(
  level: string,
  name = "voiceops",
  destination?: pino.DestinationStream,
  format: LogFormat = "json",
): Logger {
  const options: pino.LoggerOptions = {
    name,
    level,
    serializers: { err: (value: unknown) => serializeError(value) },
    redact: { paths: ["req.headers['x-api-key']", "req.headers.authorization", "apiKey", "key"], remove: true },
  };
  if (destination) return pino(options, destination);
  if (isPrettyLog(format)) return pino(options, prettyDestination());
  // pino flushes its own destinations synchronously on exit, a crash's included.
  return pino(
    options,
    pino.destination({ dest: 1, sync: false, minLength: LOG_WRITE_BYTES, periodicFlush: LOG_FLUSH_MS }),
  );
}
