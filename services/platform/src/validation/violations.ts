import { Code, ConnectError } from "@connectrpc/connect";
import { create } from "@bufbuild/protobuf";
import { FieldViolationSchema, ValidationFailureSchema } from "@voiceops/proto/voiceops/api/v1/errors_pb";

/** One failing field, in the vocabulary of FastAPI's HTTPValidationError. */
export interface Violation {
  /** Dotted field path in the request message ("" = the request or body as a whole). */
  field: string;
  type: string;
  message: string;
  input?: unknown;
  context?: Record<string, unknown>;
}

export function violation(field: string, type: string, message: string, input?: unknown, context?: Record<string, unknown>): Violation {
  return { field, type, message, input, context };
}

/** An INVALID_ARGUMENT error that carries every violation, for the gateway to place. */
export function invalidArgument(violations: Violation[]): ConnectError {
  const summary = violations.map((v) => `${v.field || "request"}: ${v.message}`).join("; ");
  return new ConnectError(summary, Code.InvalidArgument, undefined, [
    {
      desc: ValidationFailureSchema,
      value: create(ValidationFailureSchema, {
        violations: violations.map((v) =>
          create(FieldViolationSchema, {
            field: v.field,
            type: v.type,
            message: v.message,
            inputJson: v.input === undefined ? "" : JSON.stringify(v.input),
            contextJson: v.context === undefined ? "" : JSON.stringify(v.context),
          }),
        ),
      }),
    },
  ]);
}

/** Reads the violations back from an error (empty when it carries none). */
export function violationsOf(error: ConnectError): Violation[] {
  const failures = error.findDetails(ValidationFailureSchema);
  return failures.flatMap((failure) =>
    failure.violations.map((v) => ({
      field: v.field,
      type: v.type,
      message: v.message,
      input: v.inputJson ? (JSON.parse(v.inputJson) as unknown) : undefined,
      context: v.contextJson ? (JSON.parse(v.contextJson) as Record<string, unknown>) : undefined,
    })),
  );
}

/** The 404 of a record the caller's organization does not have ("Contact not found"). */
export function notFound(what: string): ConnectError {
  return new ConnectError(`${what} not found`, Code.NotFound);
}
