import { Code } from "@connectrpc/connect";
import { defineErrors } from "@voiceops/platform";

/** The conflicts and preconditions of the fieldops service (409s), each named and written once. */
export const fieldopsErrors = defineErrors("fieldops", {
  SLOT_TAKEN: { code: Code.AlreadyExists, message: "Slot no longer available" },
  SLOT_HOLD_GONE: { code: Code.FailedPrecondition, message: "Slot hold expired or unknown" },
  APPOINTMENT_TYPE_NOT_BOOKABLE: {
    code: Code.FailedPrecondition,
    message: "The appointment type is no longer bookable",
  },
  APPOINTMENT_FINISHED: {
    code: Code.FailedPrecondition,
    message: (status: string) => `The appointment is ${status} and cannot change`,
  },
  ON_CALL_OVERLAP: {
    code: Code.AlreadyExists,
    message: (other: string) => `The technician is already on call then: on-call schedule ${other} overlaps`,
  },
  ON_CALL_SCHEDULE_CANCELLED: {
    code: Code.FailedPrecondition,
    message: "The on-call schedule is cancelled and cannot be changed",
  },
  ON_CALL_SCHEDULE_CHANGED: { code: Code.Aborted, message: "The on-call schedule changed meanwhile; read it again" },
  DISPATCH_FINISHED: {
    code: Code.FailedPrecondition,
    message: (status: string) => `The dispatch is ${status} and cannot change`,
  },
  NO_TECHNICIAN_AVAILABLE: {
    code: Code.FailedPrecondition,
    message: "No technician available: nobody active is on call and free now",
  },
  ACTIVE_DISPATCH_EXISTS: {
    code: Code.AlreadyExists,
    // The id is named when the check finds it; a race lost to the unique index knows none.
    message: (dispatchId?: string) =>
      `The service request already has an active dispatch${dispatchId === undefined ? "" : `: ${dispatchId}`}`,
  },
  DISPATCH_TRANSITION: {
    code: Code.FailedPrecondition,
    message: (from: string, to: string) => `A dispatch cannot go from ${from} to ${to}`,
  },
  DISPATCH_NEEDS_TECHNICIAN: {
    code: Code.FailedPrecondition,
    message: (status: string) => `A dispatch needs a technician before it can be ${status}`,
  },
  TECHNICIAN_ON_ACTIVE_DISPATCH: {
    code: Code.FailedPrecondition,
    message: (name: string) => `${name} is on an active dispatch: complete or cancel it first`,
  },
});
