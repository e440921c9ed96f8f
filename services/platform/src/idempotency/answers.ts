import { toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";

/**
 * Error answers a key keeps: the ones that say something final about the request (404, 409).
 * The rest ran nothing or may be retried and free the key: 401 (Unauthenticated), 403
 * (PermissionDenied), 422 (InvalidArgument, OutOfRange), 429 (ResourceExhausted), 5xx.
 */
const KEPT = new Set<Code>([Code.NotFound, Code.AlreadyExists, Code.FailedPrecondition, Code.Aborted]);

export function isKeptError(code: Code): boolean {
  return KEPT.has(code);
}

interface StoredError {
  message: string;
  details: { type: string; value: string }[];
}

/** An error as a key keeps it: its message and details (code apart); internal messages never. */
export function encodeErrorAnswer(error: ConnectError): Uint8Array {
  const internal = error.code === Code.Internal || error.code === Code.Unknown;
  const stored: StoredError = {
    message: internal ? "internal error" : error.rawMessage,
    details: internal
      ? []
      : error.details.map((detail) =>
          "desc" in detail
            ? {
                type: detail.desc.typeName,
                value: Buffer.from(toBinary(detail.desc, detail.value as never)).toString("base64"),
              }
            : { type: detail.type, value: Buffer.from(detail.value).toString("base64") },
        ),
  };
  return Buffer.from(JSON.stringify(stored));
}

/** The kept error again, as the service first answered it. */
export function decodeErrorAnswer(code: number, bytes: Uint8Array): ConnectError {
  const stored = JSON.parse(Buffer.from(bytes).toString("utf8")) as StoredError;
  const error = new ConnectError(stored.message, code as Code);
  for (const detail of stored.details)
    error.details.push({ type: detail.type, value: Buffer.from(detail.value, "base64"), debug: undefined });
  return error;
}
