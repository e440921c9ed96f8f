import { ConfigError } from "@voiceops/platform";

// When attempts are made: the first at once, each next one a delay after the previous failure.

/** The contract's schedule: at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
const DEFAULT_SCHEDULE_MS = [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, min: 60_000, h: 3_600_000 };
const JITTER = 0.1;
/** The longest Retry-After honoured. */
const MAX_RETRY_AFTER_MS = 3_600_000;

/** WEBHOOK_RETRY_SCHEDULE ("0,2s,5s": the first being the immediate attempt), or the default. */
export function retrySchedule(env: Record<string, string | undefined>): number[] {
  const text = env.WEBHOOK_RETRY_SCHEDULE?.trim();
  if (!text) return DEFAULT_SCHEDULE_MS;
  return text.split(",").map((part) => {
    const match = /^(\d+(?:\.\d+)?)(ms|s|m|min|h)?$/.exec(part.trim());
    if (!match?.[1])
      throw new ConfigError("WEBHOOK_RETRY_SCHEDULE", `must be comma-separated delays like "0,2s,5m", got "${text}"`);
    return Math.round(Number(match[1]) * (UNIT_MS[match[2] ?? "s"] ?? 1_000));
  });
}

/**
 * When the attempt after `attempts` failed ones is due (±10 %), or null when the schedule is
 * used up. A Retry-After (of a 429 or 503) pushes it later, up to an hour.
 */
export function nextAttemptAt(
  schedule: number[],
  attempts: number,
  now: Date,
  retryAfterMs: number | null,
): Date | null {
  const delay = schedule[attempts];
  if (delay === undefined) return null;
  const jittered = delay * (1 - JITTER + Math.random() * 2 * JITTER);
  const wait = Math.max(jittered, Math.min(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS));
  return new Date(now.getTime() + wait);
}

/** A Retry-After header (seconds or an HTTP date) in milliseconds from now. */
export function retryAfterMs(header: string | undefined, now: Date): number | null {
  if (!header) return null;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1_000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - now.getTime());
}
