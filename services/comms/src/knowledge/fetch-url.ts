import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import type { Readable } from "node:stream";
import { isBlockedAddress, isLocalHostname, literalAddress } from "@voiceops/platform";
import { IngestionError } from "./errors.js";

export interface FetchOptions {
  /** Let the fetch reach loopback, private and link-local addresses. */
  allowPrivate: boolean;
  /** For the whole fetch: every redirect and the body. */
  timeoutMs: number;
  maxBytes: number;
  /** Stops the fetch early (the worker is shutting down). */
  signal?: AbortSignal;
  /** Which addresses are refused; the production policy unless a test narrows it. */
  isBlocked?: (address: string) => boolean;
  /** Name resolution; the system resolver unless a test replaces it. */
  lookup?: typeof dnsLookup;
}

interface FetchedDocument {
  /** The address the body came from, after redirects. */
  url: string;
  /** The media type the server declared, without parameters, lower case. */
  contentType: string | undefined;
  body: Buffer;
}

const MAX_REDIRECTS = 5;
const USER_AGENT = "voiceops-knowledge-base/1.0 (+ingestion of a business's own documents)";
const ACCEPT =
  "text/html, application/xhtml+xml, text/markdown, text/plain, application/pdf, application/vnd.openxmlformats-officedocument.wordprocessingml.document;q=0.9, */*;q=0.1";

/** Why a URL may not be fetched before any connection is made, or undefined when it may be tried. */
export function urlProblem(
  raw: string,
  allowPrivate: boolean,
  isBlocked: (address: string) => boolean = isBlockedAddress,
): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "is not a valid URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "must use http or https";
  if (!url.hostname) return "has no host";
  if (allowPrivate) return undefined;
  const literal = literalAddress(url.hostname);
  if (literal !== undefined && isBlocked(literal)) return "points to a loopback, private or link-local address";
  if (literal === undefined && isLocalHostname(url.hostname))
    return "points to a loopback, private or link-local address";
  return undefined;
}

/** Resolves a host name to every address; undefined when resolution fails or takes too long. */
export function resolveAll(
  hostname: string,
  timeoutMs: number,
  lookup: typeof dnsLookup = dnsLookup,
): Promise<string[] | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), timeoutMs);
    lookup(hostname, { all: true }, (error, addresses) => {
      clearTimeout(timer);
      resolve(error ? undefined : (addresses as LookupAddress[]).map((a) => a.address));
    });
  });
}

/** A resolver for the connection itself that refuses blocked addresses, so a name cannot change its answer between our check and the connect. */
function guardedLookup(options: FetchOptions): LookupFunction {
  const isBlocked = options.isBlocked ?? isBlockedAddress;
  const lookup = options.lookup ?? dnsLookup;
  return ((hostname: string, lookupOptions: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    lookup(hostname, { ...lookupOptions, all: true }, (error, found) => {
      if (error) return callback(error);
      const addresses = found as LookupAddress[];
      if (!options.allowPrivate && addresses.some((a) => isBlocked(a.address))) {
        return callback(
          new IngestionError(`the host ${hostname} resolves to a loopback, private or link-local address`, false),
        );
      }
      if (addresses.length === 0) return callback(new IngestionError(`the host ${hostname} has no address`, false));
      if (lookupOptions.all) return callback(null, addresses);
      const first = addresses[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  }) as LookupFunction;
}

function mediaType(header: string | undefined): string | undefined {
  const type = header?.split(";", 1)[0]?.trim().toLowerCase();
  return type ? type : undefined;
}

function request(url: URL, options: FetchOptions, signal: AbortSignal): Promise<IncomingMessage> {
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.get(url, {
      headers: { "user-agent": USER_AGENT, accept: ACCEPT, "accept-encoding": "gzip, deflate, br" },
      lookup: guardedLookup(options),
      signal,
      agent: false,
    });
    req.once("response", resolve);
    req.once("error", reject);
  });
}

function decoded(response: IncomingMessage): Readable {
  switch ((response.headers["content-encoding"] ?? "").trim().toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return response.pipe(createGunzip());
    case "deflate":
      return response.pipe(createInflate());
    case "br":
      return response.pipe(createBrotliDecompress());
    default:
      return response;
  }
}

async function readBody(response: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(response.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
    response.destroy();
    throw new IngestionError(`the document is larger than ${maxBytes / (1024 * 1024)} MB`, false);
  }
  const parts: Buffer[] = [];
  let size = 0;
  const stream = decoded(response);
  try {
    for await (const part of stream) {
      const buffer = part as Buffer;
      size += buffer.length;
      if (size > maxBytes)
        throw new IngestionError(`the document is larger than ${maxBytes / (1024 * 1024)} MB`, false);
      parts.push(buffer);
    }
  } catch (error) {
    response.destroy();
    if (error instanceof IngestionError) throw error;
    if (isAbort(error)) throw error;
    throw new IngestionError(`the document could not be read: ${describe(error)}`, true);
  }
  return Buffer.concat(parts);
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || (error as { code?: string }).code === "ABORT_ERR");
}

function describe(error: unknown): string {
  const code = (error as { code?: string }).code;
  const known: Record<string, string> = {
    ECONNREFUSED: "the connection was refused",
    ECONNRESET: "the connection was reset",
    ENOTFOUND: "the host was not found",
    EAI_AGAIN: "the host name could not be resolved",
    EHOSTUNREACH: "the host is unreachable",
    ENETUNREACH: "the network is unreachable",
    ETIMEDOUT: "the connection timed out",
    CERT_HAS_EXPIRED: "its TLS certificate has expired",
    DEPTH_ZERO_SELF_SIGNED_CERT: "its TLS certificate is self-signed",
    ERR_TLS_CERT_ALTNAME_INVALID: "its TLS certificate does not match the host",
  };
  if (code && known[code]) return known[code];
  return error instanceof Error ? error.message : String(error);
}

/**
 * Fetches a URL for ingestion: http or https only, redirects followed (at most 5) and each hop
 * checked again, every resolved address checked at connect time, limited in time and size.
 * Throws an IngestionError saying why it failed and whether trying again could help.
 */
export async function fetchUrl(raw: string, options: FetchOptions): Promise<FetchedDocument> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  let current = raw;
  try {
    for (let hop = 0; ; hop++) {
      const problem = urlProblem(current, options.allowPrivate, options.isBlocked);
      if (problem)
        throw new IngestionError(
          hop === 0 ? `the URL ${problem}` : `the URL redirects to ${current}, which ${problem}`,
          false,
        );
      const url = new URL(current);
      let response: IncomingMessage;
      try {
        response = await request(url, options, signal);
      } catch (error) {
        if (error instanceof IngestionError || isAbort(error)) throw error;
        const code = (error as { code?: string }).code;
        throw new IngestionError(`the URL could not be fetched: ${describe(error)}`, code !== "ENOTFOUND");
      }
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400 && response.headers.location) {
        response.resume();
        if (hop >= MAX_REDIRECTS) throw new IngestionError(`the URL redirects more than ${MAX_REDIRECTS} times`, false);
        current = new URL(response.headers.location, url).toString();
        continue;
      }
      if (status < 200 || status >= 300) {
        response.resume();
        const transient = status === 408 || status === 429 || status >= 500;
        throw new IngestionError(`the URL answered HTTP ${status}`, transient);
      }
      const body = await readBody(response, options.maxBytes);
      return { url: current, contentType: mediaType(response.headers["content-type"]), body };
    }
  } catch (error) {
    if (isAbort(error) || signal.aborted) {
      if (options.signal?.aborted) throw new IngestionError("ingestion was interrupted", true);
      throw new IngestionError(`the URL did not answer within ${options.timeoutMs / 1000} seconds`, true);
    }
    throw error;
  }
}
