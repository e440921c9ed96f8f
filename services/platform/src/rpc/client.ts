import type { DescService } from "@bufbuild/protobuf";
import { createClient, type CallOptions, type Client, type Transport } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { orgHeaders, type OrgContext } from "./org-context.js";

/** A pooled HTTP/2 gRPC transport to one service. */
export function serviceTransport(baseUrl: string): Transport {
  return createGrpcTransport({ baseUrl, defaultTimeoutMs: 10_000, pingIntervalMs: 30_000, acceptCompression: [] });
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
