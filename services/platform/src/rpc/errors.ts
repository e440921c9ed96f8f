import { Code, ConnectError, type Transport } from "@connectrpc/connect";

/**
 * Metadata a service puts on every error it answers with. An error without it did not come
 * from a service's code: the call failed on the way (connection refused or reset, stream
 * closed, the peer died mid-call), whatever code the transport chose for it.
 */
const ERROR_ORIGIN_KEY = "x-error-origin";

export function markAnswered(error: ConnectError): ConnectError {
  error.metadata.set(ERROR_ORIGIN_KEY, "service");
  return error;
}

/** Whether a service answered with this error (as opposed to the call failing in transit). */
export function isAnswered(error: ConnectError): boolean {
  return error.metadata.get(ERROR_ORIGIN_KEY) === "service";
}

/**
 * A call that failed in transit is UNAVAILABLE ("<service> unavailable"), never the code and
 * message the transport made up (ECONNRESET became ABORTED, "read ECONNRESET"). Deadlines and
 * the caller's own cancellation keep their codes.
 */
function inTransit(error: unknown, service: string, signal: AbortSignal | undefined): ConnectError {
  const connectError = ConnectError.from(error);
  if (
    isAnswered(connectError) ||
    connectError.code === Code.DeadlineExceeded ||
    (connectError.code === Code.Canceled && signal?.aborted)
  ) {
    return connectError;
  }
  return new ConnectError(`${service} unavailable`, Code.Unavailable, undefined, undefined, connectError);
}

/** A transport whose calls that fail in transit are UNAVAILABLE (see inTransit). */
export function unavailableInTransit(transport: Transport, service: string): Transport {
  return {
    unary: (method, signal, timeoutMs, header, input, contextValues) =>
      transport.unary(method, signal, timeoutMs, header, input, contextValues).catch((error: unknown) => {
        throw inTransit(error, service, signal);
      }),
    stream: (method, signal, timeoutMs, header, input, contextValues) =>
      transport.stream(method, signal, timeoutMs, header, input, contextValues).catch((error: unknown) => {
        throw inTransit(error, service, signal);
      }),
  };
}
