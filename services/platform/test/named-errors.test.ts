import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { HealthService } from "@voiceops/proto/voiceops/health/v1/health_service_pb";
import { describe, expect, it } from "vitest";
import { defineErrors, errorReason } from "../src/index.js";

const errors = defineErrors("example", {
  THING_TAKEN: { code: Code.AlreadyExists, message: "The thing is taken" },
  THING_FINISHED: {
    code: Code.FailedPrecondition,
    message: (status: string) => `The thing is ${status} and cannot change`,
  },
});

describe("defineErrors", () => {
  it("makes each named error with its code, its message and an ErrorInfo naming it", () => {
    const taken = errors.THING_TAKEN();
    expect(taken).toBeInstanceOf(ConnectError);
    expect([taken.code, taken.rawMessage, errorReason(taken)]).toEqual([
      Code.AlreadyExists,
      "The thing is taken",
      "THING_TAKEN",
    ]);
    const finished = errors.THING_FINISHED("cancelled");
    expect([finished.code, finished.rawMessage, errorReason(finished)]).toEqual([
      Code.FailedPrecondition,
      "The thing is cancelled and cannot change",
      "THING_FINISHED",
    ]);
  });

  it("keeps the name across a call, and names no other error", async () => {
    const transport = createRouterTransport((router) =>
      router.service(HealthService, {
        check() {
          throw errors.THING_TAKEN();
        },
      }),
    );
    const failure = await createClient(HealthService, transport)
      .check({})
      .then(
        () => undefined,
        (error: unknown) => ConnectError.from(error),
      );
    expect(failure?.code).toBe(Code.AlreadyExists);
    expect(failure && errorReason(failure)).toBe("THING_TAKEN");
    expect(errorReason(new ConnectError("The thing is taken", Code.AlreadyExists))).toBeUndefined();
  });
});
