import { create } from "@bufbuild/protobuf";
import { type Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "@voiceops/proto/google/rpc/error_details_pb";

// A service's conflicts and preconditions (the 409s) as a closed set of named codes, like the
// ViolationRule set of the 422s: each written once, with its code and its message. The error
// carries a google.rpc.ErrorInfo detail naming it (reason = its name, domain = the service), so
// a caller tells refusals apart by name, never by their wording.

/** One named error: its RPC code and its message (a function of the values it names). */
interface NamedErrorSpec {
  readonly code: Code;
  readonly message: string | ((...values: never[]) => string);
}

type ValuesOf<M> = M extends (...values: infer A) => string ? A : [];

/** The errors of a service, by name: each makes its ConnectError from the values its message names. */
type NamedErrors<T extends Record<string, NamedErrorSpec>> = {
  readonly [Name in keyof T]: (...values: ValuesOf<T[Name]["message"]>) => ConnectError;
};

export function defineErrors<const T extends Record<string, NamedErrorSpec>>(domain: string, specs: T): NamedErrors<T> {
  const errors: Record<string, (...values: never[]) => ConnectError> = {};
  for (const [reason, { code, message }] of Object.entries(specs)) {
    errors[reason] = (...values: never[]) =>
      new ConnectError(typeof message === "string" ? message : message(...values), code, undefined, [
        { desc: ErrorInfoSchema, value: create(ErrorInfoSchema, { reason, domain }) },
      ]);
  }
  return errors as NamedErrors<T>;
}

/** The name of a named error (its ErrorInfo reason), or undefined for any other error. */
export function errorReason(error: unknown): string | undefined {
  return ConnectError.from(error).findDetails(ErrorInfoSchema)[0]?.reason;
}
