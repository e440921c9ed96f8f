import { pino, type Logger } from "pino";

export type { Logger };

/** One JSON logger per process; components take children of it. */
export function createLogger(level: string, name = "voiceops"): Logger {
  return pino({
    name,
    level,
    redact: { paths: ["req.headers['x-api-key']", "req.headers.authorization", "apiKey", "key"], remove: true },
  });
}
