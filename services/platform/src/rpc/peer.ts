import { createClient, type Client } from "@connectrpc/connect";
import type { ApiOf, ServiceName } from "../registry.js";
import type { ServiceContext } from "../service.js";
import type { PeerClient } from "./client.js";
import { orgHeaders } from "./org-context.js";

/**
 * A client of another service, by its registry name and a proto service the registry says it
 * serves: a name or a service not in the registry does not compile. It connects on first use,
 * since a service's routes are made before its peers' addresses are known.
 */
export function peer<N extends ServiceName, S extends ApiOf<N>>(
  context: Pick<ServiceContext, "peer" | "internalToken">,
  name: N,
  service: S,
): PeerClient<S> {
  let client: Client<S> | undefined;
  return {
    get client() {
      client ??= createClient(service, context.peer(name));
      return client;
    },
    as: (org) => ({ headers: orgHeaders(org, context.internalToken) }),
  };
}
