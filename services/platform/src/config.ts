import { createHash } from "node:crypto";
import { readFastPath } from "./fast-path/index.js";

// Environment-only configuration. Every reader validates its variable and fails fast with a
// message that names it, so a bad deployment stops at start-up instead of at the first request.
// A process reads its environment once, in its entry point, and passes what it read (or the
// environment itself, for the services' own settings) down: the settings readers take `env`.

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`invalid configuration: ${variable} ${problem}`);
    this.name = "ConfigError";
  }
}

type Env = Record<string, string | undefined>;

export function envString(name: string, fallback: string | undefined, env: Env): string {
  const value = env[name];
  if (value === undefined || value === "") {
    if (fallback === undefined) throw new ConfigError(name, "is required");
    return fallback;
  }
  return value;
}

export function envOptional(name: string, env: Env): string | undefined {
  const value = env[name];
  return value === undefined || value === "" ? undefined : value;
}

export function envInt(name: string, fallback: number, bounds: { min?: number; max?: number } = {}, env: Env): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(name, `must be an integer, got "${raw}"`);
  const value = Number(raw);
  if (bounds.min !== undefined && value < bounds.min)
    throw new ConfigError(name, `must be >= ${bounds.min}, got ${value}`);
  if (bounds.max !== undefined && value > bounds.max)
    throw new ConfigError(name, `must be <= ${bounds.max}, got ${value}`);
  return value;
}

export function envUrl(name: string, protocols: string[], env: Env): string | undefined {
  const raw = envOptional(name, env);
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, "is not a valid URL");
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(" or ")}, got ${url.protocol}`);
  }
  return raw;
}

function envEnum<T extends string>(name: string, allowed: readonly T[], fallback: T, env: Env): T {
  const raw = envOptional(name, env);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(", ")}, got "${raw}"`);
  }
  return raw as T;
}

/** How long the bus keeps events when EVENT_RETENTION_DAYS is unset. */
export const DEFAULT_EVENT_RETENTION_DAYS = 400;

/** Settings every process shares: where its data and events live. */
export interface InfraConfig {
  databaseUrl: string | undefined;
  /** PostgreSQL only: connections in pg's pipeline mode for the lookups by key (0: every statement on the pool). */
  dbPipelinedConnections: number;
  natsUrl: string | undefined;
  dataDir: string;
  /** Embedded PGlite only: whether reads by id may be answered from results kept since the last write. */
  embeddedReadCache: boolean;
  logLevel: string;
  /** LOG_FORMAT: json, pretty, or unset (auto: pretty when stdout is a terminal). */
  logFormat: "json" | "pretty" | "auto";
  internalToken: string | undefined;
  /** Namespace of this environment's streams, subjects and consumers on NATS. */
  natsPrefix: string;
  /** Days the NATS streams keep events: the history a replay can see. */
  eventRetentionDays: number;
}

const NATS_PREFIX = /^[a-z][a-z0-9_]{0,31}$/;

/**
 * The default NATS namespace: derived from the database, since the components that share a
 * database are one environment and must share their streams, and others must not.
 */
export function defaultNatsPrefix(databaseUrl: string | undefined): string {
  return `vo_${createHash("sha256")
    .update(databaseUrl ?? "")
    .digest("hex")
    .slice(0, 10)}`;
}

export function readInfraConfig(env: Env): InfraConfig {
  // Read where it is used (fast-path/index.ts); checked here so a bad value stops the start.
  readFastPath(env);
  const databaseUrl = envUrl("DATABASE_URL", ["postgres:", "postgresql:"], env);
  const natsPrefix = envString("NATS_PREFIX", defaultNatsPrefix(databaseUrl), env);
  if (!NATS_PREFIX.test(natsPrefix))
    throw new ConfigError(
      "NATS_PREFIX",
      `must be a lower-case letter then up to 31 letters, digits or _, got "${natsPrefix}"`,
    );
  return {
    databaseUrl,
    dbPipelinedConnections: envInt("DB_PIPELINED_CONNECTIONS", 2, { min: 0, max: 16 }, env),
    natsPrefix,
    eventRetentionDays: envInt("EVENT_RETENTION_DAYS", DEFAULT_EVENT_RETENTION_DAYS, { min: 1, max: 3650 }, env),
    natsUrl: envUrl("NATS_URL", ["nats:", "tls:", "ws:", "wss:"], env),
    dataDir: envString("DATA_DIR", "./.data", env),
    embeddedReadCache: envEnum("EMBEDDED_READ_CACHE", ["on", "off"], "on", env) === "on",
    logLevel: envEnum("LOG_LEVEL", ["fatal", "error", "warn", "info", "debug", "trace", "silent"], "info", env),
    logFormat:
      envOptional("LOG_FORMAT", env) === undefined
        ? "auto"
        : envEnum("LOG_FORMAT", ["json", "pretty"] as const, "json", env),
    internalToken: envOptional("INTERNAL_TOKEN", env),
  };
}

/** A true/false setting: "true" or "1", "false" or "0"; unset is false. */
export function envFlag(name: string, env: Env): boolean {
  const value = env[name]?.trim().toLowerCase();
  if (value === undefined || value === "" || value === "false" || value === "0") return false;
  if (value === "true" || value === "1") return true;
  throw new ConfigError(name, `must be true or false, got "${value}"`);
}
