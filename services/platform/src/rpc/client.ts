import type { DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, type CallOptions, type Client, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { connectUnaryTransport, fastPath } from "../fast-path/index.js";
import { unavailableInTransit } from "./errors.js";
import { MAX_MESSAGE_BYTES } from "./limits.js";
import type { OrgContext } from "./org-context.js";

/** Connect's gRPC transport (HTTP/2 session pool, every RPC kind). */
function connectGrpcTransport(baseUrl: string): Transport {
  return createGrpcTransport({ baseUrl, defaultTimeoutMs: 10_000, pingIntervalMs: 30_000, acceptCompression: [] });
}

/** Connect's own transport for the Connect protocol in binary over HTTP/1.1 (Node's keep-alive agent). */
export function connectHttp1Transport(baseUrl: string): Transport {
  return createConnectTransport({
    baseUrl,
    httpVersion: "1.1",
    useBinaryFormat: true,
    defaultTimeoutMs: 10_000,
    acceptCompression: [],
    readMaxBytes: MAX_MESSAGE_BYTES,
    writeMaxBytes: MAX_MESSAGE_BYTES,
  });
}

/**
 * The transport to another component: unary Connect calls in binary over kept-alive HTTP/1.1
 * connections, through the fast path's client (FAST_PATH's `rpc`, see fast-path/index.ts) with
 * Connect's gRPC transport for streams, or through Connect's own transport; a call that fails in
 * transit is UNAVAILABLE.
 */
export function serviceTransport(baseUrl: string, service = baseUrl): Transport {
  if (!fastPath("rpc")) return unavailableInTransit(connectHttp1Transport(baseUrl), service);
  let streams: Transport | undefined;
  const transport = connectUnaryTransport(baseUrl, {
    defaultTimeoutMs: 10_000,
    fallback: () => (streams ??= connectGrpcTransport(baseUrl)),
  });
  return unavailableInTransit(transport, service);
}

export interface PeerClient<S extends DescService> {
  client: Client<S>;
  /** Call options that forward the caller's org context and authenticate the call. */
  as(org: OrgContext): CallOptions;
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
