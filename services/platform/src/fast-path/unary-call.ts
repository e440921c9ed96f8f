import {
  create,
  fromBinary,
  isMessage,
  toBinary,
  type DescMessage,
  type DescMethod,
  type MessageInitShape,
  type MessageShape,
} from "@bufbuild/protobuf";
import type { Readable } from "node:stream";
import {
  Code,
  ConnectError,
  createContextValues,
  type ContextValues,
  type HandlerContext,
  type Interceptor,
  type MethodImplSpec,
} from "@connectrpc/connect";
import { invokeUnaryImplementation } from "@connectrpc/connect/protocol";
import { MAX_MESSAGE_BYTES } from "../rpc/limits.js";

// Nothing aborts a call from outside unless the caller passes its own signal.
const NEVER_ABORTED = new AbortController().signal;

/** The characters of a header name (an RFC 9110 token). */
export const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** The unary implementations of a router by request path ("/package.Service/Method"). */
export function unaryByPath(specs: Map<string, MethodImplSpec>): Map<string, MethodImplSpec & { kind: "unary" }> {
  const byPath = new Map<string, MethodImplSpec & { kind: "unary" }>();
  for (const spec of specs.values()) {
    if (spec.kind === "unary") byPath.set(`/${spec.method.parent.typeName}/${spec.method.name}`, spec);
  }
  return byPath;
}

type NodeHeaderValues = Record<string, string | string[] | undefined>;

/** A served call's metadata (Node's header object) as web Headers, without HTTP/2 pseudo-headers. */
export function webHeaders(headers: NodeHeaderValues): Headers {
  const out = new Headers();
  for (const key in headers) {
    if (key.charCodeAt(0) === 58 /* ":" */) continue;
    const value = headers[key];
    if (Array.isArray(value)) for (const item of value) out.append(key, item);
    else if (value !== undefined) out.append(key, value);
  }
  return out;
}

interface UnaryRequest {
  protocolName: string;
  url: string;
  header: Headers;
  /** The caller's deadline, when it sent one. */
  timeoutMs: number | undefined;
  /** The request message's bytes; throws on a malformed envelope or an oversized body. */
  message: () => Uint8Array;
  /** How the answer is written; protobuf's binary encoding unless given. */
  encode?: (message: MessageShape<DescMessage>) => Uint8Array;
}

interface UnaryOutcome {
  context: HandlerContext;
  /** The answer's bytes, or the error the call ends with. */
  output?: Uint8Array;
  failure?: ConnectError;
}

/**
 * The context a handler runs with, for a call over the network or in process. `timeoutMs`: the
 * caller's deadline from now, when it sent one.
 */
export function unaryContext(
  method: DescMethod,
  call: {
    protocolName: string;
    url: string;
    header: Headers;
    timeoutMs: number | undefined;
    signal?: AbortSignal;
    values?: ContextValues;
  },
): HandlerContext {
  const deadline = call.timeoutMs === undefined ? undefined : Date.now() + call.timeoutMs;
  return {
    service: method.parent,
    method,
    protocolName: call.protocolName,
    requestMethod: "POST",
    url: call.url,
    signal: call.signal ?? NEVER_ABORTED,
    timeoutMs: () => (deadline === undefined ? undefined : deadline - Date.now()),
    requestHeader: call.header,
    responseHeader: new Headers(),
    responseTrailer: new Headers(),
    values: call.values ?? createContextValues(),
  };
}

/**
 * Runs one unary call of an implementation through the server interceptors, as Connect's
 * handler would, for the protocols served without Connect's general machinery (gRPC over
 * HTTP/2, the Connect protocol over HTTP/1.1).
 */
export async function runUnary(
  spec: MethodImplSpec & { kind: "unary" },
  interceptors: Interceptor[],
  request: UnaryRequest,
): Promise<UnaryOutcome> {
  const context = unaryContext(spec.method, request);
  try {
    const input = fromBinary(spec.method.input, request.message());
    const output = await invokeUnaryImplementation(spec, context, input, interceptors);
    return { context, output: request.encode ? request.encode(output) : toBinary(spec.method.output, output) };
  } catch (error) {
    return { context, failure: ConnectError.from(error) };
  }
}

/**
 * Reads a request's body, keeping at most `limit` bytes; `done` gets the body, or undefined
 * when it was longer (the rest is read and dropped, so the answer can still be sent).
 */
export function readBody(req: Readable, limit: number, done: (body: Buffer | undefined) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size <= limit) chunks.push(chunk);
  });
  req.on("end", () => done(size <= limit ? Buffer.concat(chunks, size) : undefined));
}

/** The error for a request body past MAX_MESSAGE_BYTES. */
export function tooLarge(): ConnectError {
  return new ConnectError(`message larger than ${MAX_MESSAGE_BYTES} bytes`, Code.ResourceExhausted);
}

/** Call metadata (any form Connect accepts) copied into a header object, names in lower case. */
export function metadataInto(
  header: ConstructorParameters<typeof Headers>[0] | undefined,
  out: Record<string, string | number | string[] | undefined>,
): void {
  if (header === undefined) return;
  if (header instanceof Headers) {
    header.forEach((value, key) => {
      out[key] = value;
    });
  } else if (Array.isArray(header)) {
    for (const [key = "", value] of header) out[key.toLowerCase()] = value;
  } else {
    for (const key in header) out[key.toLowerCase()] = (header as Record<string, string>)[key];
  }
}

/** A call's input as a message: as given when it is one, else made from its init fields. */
export function requestMessage<I extends DescMessage>(schema: I, input: MessageInitShape<I>): MessageShape<I> {
  return isMessage(input, schema) ? input : create(schema, input);
}

/** The error of a call its caller cancelled (its signal aborted). */
export function canceled(): ConnectError {
  return new ConnectError("the operation was aborted", Code.Canceled);
}

/** The error of a call whose deadline passed before its answer. */
export function timedOut(): ConnectError {
  return new ConnectError("the operation timed out", Code.DeadlineExceeded);
}

/** A call that failed on the way (connection refused, reset, closed before the answer). */
export function unavailable(error: unknown): ConnectError {
  const message = error instanceof Error ? error.message : String(error);
  return new ConnectError(message, Code.Unavailable, undefined, undefined, error);
}

/** The request path of each method under a base URL's path, remembered per method. */
export function methodPaths(baseUrl: URL): (method: DescMethod) => string {
  const prefix = baseUrl.pathname.replace(/\/$/, "");
  const paths = new WeakMap<DescMethod, string>();
  return (method) => {
    let path = paths.get(method);
    if (path === undefined) {
      path = `${prefix}/${method.parent.typeName}/${method.name}`;
      paths.set(method, path);
    }
    return path;
  };
}
