import type { DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type CallOptions, type Client, type Transport } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { unavailableInTransit } from "./errors.js";
import { connectUnaryTransport } from "./connect-unary-client.js";
import { orgHeaders, type OrgContext } from "./org-context.js";

/** Connect's gRPC transport (HTTP/2 session pool, every RPC kind). */
export function connectGrpcTransport(baseUrl: string): Transport {
  return createGrpcTransport({ baseUrl, defaultTimeoutMs: 10_000, pingIntervalMs: 30_000, acceptCompression: [] });
}

/**
 * The transport to another component: unary Connect calls over kept-alive HTTP/1.1
 * connections (see connect-unary-client.ts and gateway/bench/rpc-clients.ts for why), Connect's
 * gRPC transport for streams; a call that fails in transit is UNAVAILABLE.
 */
export function serviceTransport(baseUrl: string, service = baseUrl): Transport {
  let streams: Transport | undefined;
  const transport = connectUnaryTransport(baseUrl, { defaultTimeoutMs: 10_000, fallback: () => (streams ??= connectGrpcTransport(baseUrl)) });
  return unavailableInTransit(transport, service);
}

export interface PeerClient<S extends DescService> {
  client: Client<S>;
  /** Call options that forward the caller's org context and authenticate the call. */
  as(org: OrgContext): CallOptions;
}

/** Client for calls between services. */
export function peerClient<S extends DescService>(service: S, transport: Transport, internalToken: string): PeerClient<S> {
  return {
    client: createClient(service, transport),
    as(org: OrgContext) {
      return { headers: orgHeaders(org, internalToken) };
    },
  };
}

/** The answer of a lookup in another service, or undefined when that service says NOT_FOUND. */
export async function foundOrUndefined<T>(lookup: Promise<T>): Promise<T | undefined> {
  try {
    return await lookup;
  } catch (error) {
    if (error instanceof ConnectError && error.code === Code.NotFound) return undefined;
    throw error;
  }
}
