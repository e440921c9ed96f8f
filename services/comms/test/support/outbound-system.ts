import { randomBytes } from "node:crypto";
import { createClient, type Client } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { ManualClock, type Clock } from "@voiceops/platform";
import {
  AdminClient,
  isolatedDatabase,
  newTenant,
  orgMetadata,
  testEnv,
  type Tenant,
} from "@voiceops/platform/testing";
import { OutboundCallsService } from "@voiceops/proto/voiceops/comms/v1/outbound_service_pb";
import { startSystem, type RunningSystem } from "../../../../gateway/src/system.js";

// A system of the test's own, on a clock the test moves: the calling window, retries and leases
// are crossed in seconds. On PostgreSQL it gets a database (and NATS namespace) of its own, so
// the shared test system's scheduler never sees its campaigns; several systems may share one
// database as replicas do.

export const INTERNAL_API_KEY = randomBytes(18).toString("base64url");

export interface OwnDatabase {
  env: Record<string, string>;
  drop(): Promise<void>;
}

/** A database and NATS namespace apart from the shared system's (nothing to do on PGlite). */
export async function ownDatabase(): Promise<OwnDatabase> {
  const base = process.env.DATABASE_URL;
  if (!base) return { env: {}, drop: async () => undefined };
  const database = await isolatedDatabase(base);
  // testEnv gives the database's systems a NATS namespace of their own.
  return { env: { DATABASE_URL: database.url }, drop: () => database.drop() };
}

export interface OutboundSystem {
  system: RunningSystem;
  internalToken: string;
  admin: AdminClient;
  tenant(org?: { timezone?: string; default_country?: string }): Promise<Tenant>;
  /** The voice runtime's gRPC client of this system's comms service. */
  calls: Client<typeof OutboundCallsService>;
  /** Call options of the runtime for an organization. */
  as(orgId: string): { headers: Record<string, string> };
  stop(): Promise<void>;
}

/** Starts a whole system on the given clock, with the voice runtime's INTERNAL_API_KEY set. */
export async function startOutboundSystem(
  clock: Clock,
  database: OwnDatabase,
  extra: Record<string, string> = {},
): Promise<OutboundSystem> {
  const internalToken = randomBytes(18).toString("base64url");
  const env = testEnv({
    ...database.env,
    INTERNAL_TOKEN: internalToken,
    INTERNAL_API_KEY,
    RATE_LIMIT_PER_MINUTE: "1000000",
    OUTBOUND_SCHEDULER_INTERVAL_MS: "100",
    ...extra,
  });
  const system = await startSystem({ env, clock, inMemory: true });
  const admin = new AdminClient(system.adminUrl, system.adminToken);
  const comms = system.services.find((s) => s.name === "comms");
  if (!comms) throw new Error("no comms service");
  const calls = createClient(OutboundCallsService, createGrpcTransport({ baseUrl: comms.url }));
  return {
    system,
    internalToken,
    admin,
    tenant: (org = {}) => newTenant(system.url, admin, org),
    calls,
    as: (orgId) => ({ headers: orgMetadata(orgId, internalToken) }),
    stop: () => system.stop(),
  };
}

export { ManualClock };
