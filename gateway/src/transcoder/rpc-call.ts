import { Code, type ConnectError } from "@connectrpc/connect";
import type { DescMethod } from "@bufbuild/protobuf";
import { isAnswered, isComponentAuthFailure, orgHeaders, violationsOf, type Violation } from "@voiceops/platform";
import { refusal, type ValidationEntry } from "../http/fastapi-errors.js";
import type { Principal } from "../identity/store.js";
import { HTTP_STATUS_OF_CODE } from "./http-status.js";

// What every caller of a service RPC on behalf of an API client shares (the REST transcoder and
// the MCP tools): the metadata that carries the organization, and how a failed call becomes the
// status and detail the client is told.

/** "voiceops.crm.v1.CrmService" is served by the service named "crm". */
export function serviceNameOfType(typeName: string): string {
  return typeName.split(".")[1] ?? "";
}

/** The service that serves an RPC. */
export function serviceOfMethod(method: DescMethod): string {
  return serviceNameOfType(method.parent.typeName);
}

/** The metadata of a call made for an authenticated client: its organization, role and request id. */
export function principalHeaders(principal: Principal, requestId: string, internalToken: string): Record<string, string> {
  return orgHeaders(
    {
      orgId: principal.orgId,
      timezone: principal.timezone,
      country: principal.country,
      businessHours: principal.businessHours,
      role: principal.role,
      requestId,
    },
    internalToken,
  );
}

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
export function rpcFailure(error: ConnectError, entriesOf: (violations: Violation[]) => ValidationEntry[], wholeRequest: (string | number)[]): RpcFailure {
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
  const status = error.code === Code.Unauthenticated && isComponentAuthFailure(error.rawMessage) ? 500 : (HTTP_STATUS_OF_CODE[error.code] ?? 500);
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
