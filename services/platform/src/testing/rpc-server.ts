import { randomUUID } from "node:crypto";
import type { ConnectRouter } from "@connectrpc/connect";
import { DEFAULT_BUSINESS_HOURS } from "../business-hours.js";
import { createLogger } from "../log.js";
import { orgHeaders, type OrgContext } from "../rpc/org-context.js";
import { startRpcServer, type RpcServer } from "../rpc/server.js";

/**
 * The headers the gateway sends with a call: the organization's context and the internal token.
 * What `org` leaves out is an owner's in a new organization (UTC, US, the default hours, a new
 * request id).
 */
export function ownerCallHeaders(internalToken: string, org: Partial<OrgContext> = {}): Record<string, string> {
  return orgHeaders(
    {
      orgId: randomUUID(),
      timezone: "UTC",
      country: "US",
      role: "owner",
      requestId: randomUUID(),
      businessHours: DEFAULT_BUSINESS_HOURS,
      ...org,
    },
    internalToken,
  );
}

/**
 * A lone service named "crm" serving `routes` on a free loopback port, with a quiet log and no
 * dependencies to report: what a test of the RPC layer calls over real sockets.
 */
export function startLoopbackRpcServer(options: {
  internalToken: string;
  routes: (router: ConnectRouter) => void;
  /** The fast path's server (true) or Connect's handler (false); FAST_PATH decides when left out. */
  directUnary?: boolean;
  /** 0 (a free port) unless given, e.g. to start again on the port of a closed server. */
  port?: number;
}): Promise<RpcServer> {
  return startRpcServer({
    name: "crm",
    host: "127.0.0.1",
    port: options.port ?? 0,
    internalToken: options.internalToken,
    logger: createLogger("silent"),
    health: async () => ({}),
    routes: options.routes,
    directUnary: options.directUnary,
  });
}
