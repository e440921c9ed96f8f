import { Code, type ConnectError } from "@connectrpc/connect";
import { isAnswered, isComponentAuthFailure, violationsOf, type Violation } from "@voiceops/platform";
import { refusal, type ValidationEntry } from "./fastapi.js";
import { HTTP_STATUS_OF_CODE } from "./http-status.js";

/** What a client is told about a failed RPC: a status and a `detail` (entries for a 422). */
export interface RpcFailure {
  status: number;
  detail: string | ValidationEntry[];
  /** How the gateway logs it: a failure in transit is a warning, a 5xx an error. */
  log?: "warn" | "error";
}

/**
 * The answer to an RPC that failed. `entriesOf` places the service's violations in the
 * client's request; `wholeRequest` is where a refusal that names no field is put.
 */
export function rpcFailure(
  error: ConnectError,
  entriesOf: (violations: Violation[]) => ValidationEntry[],
  wholeRequest: (string | number)[],
): RpcFailure {
  // A call that failed on the way (the service died, the connection was reset) is a 503 the
  // client may retry, whatever code the transport gave it.
  if (!isAnswered(error) && error.code !== Code.DeadlineExceeded && error.code !== Code.Canceled) {
    return { status: 503, detail: "Service temporarily unavailable", log: "warn" };
  }
  if (error.code === Code.InvalidArgument) {
    const violations = violationsOf(error);
    if (violations.length > 0) return { status: 422, detail: entriesOf(violations) };
    return { status: 422, detail: [refusal(wholeRequest, error.rawMessage)] };
  }
  // A service refusing the gateway's own credentials is a fault of ours, not the client's; a
  // service refusing the client's (a wrong x-internal-key) is a 401.
  const status =
    error.code === Code.Unauthenticated && isComponentAuthFailure(error.rawMessage)
      ? 500
      : (HTTP_STATUS_OF_CODE[error.code] ?? 500);
  if (status >= 500) {
    const detail =
      error.code === Code.Unavailable
        ? "Service temporarily unavailable"
        : error.code === Code.DeadlineExceeded
          ? "Upstream timeout"
          : error.code === Code.Unimplemented
            ? "Not implemented"
            : "Internal server error";
    return { status, detail, log: "error" };
  }
  return { status, detail: error.rawMessage };
}
