import type { HandlerContext } from "@connectrpc/connect";
import { DateTime } from "luxon";
import {
  invalidArgument,
  invalidValue,
  type OrgContext,
  pgErrorCode,
  PgErrorCode,
  type Emit,
  type Queryable,
  referenceNotFound,
  type ServiceContext,
  type Violation,
} from "@voiceops/platform";
import { freeSlots, rankForBooking } from "./availability.js";
import { candidateSlots, heldSpan, type SlotRules, type Span } from "./slots.js";
import { slotInterval, type AppointmentTypeRow } from "../store/appointment-types.js";
import type { FieldopsStores } from "../store/index.js";
import { fieldopsErrors } from "../errors.js";

// What booking, rescheduling and holding a slot share: the slot check, the choice of
// technician, and the claim the database arbitrates.

/** Tries of one claim whose transaction PostgreSQL aborted as a deadlock before it answers. */
const MAX_DEADLOCK_TRIES = 3;

export function rulesOf(type: AppointmentTypeRow): SlotRules {
  return {
    durationMinutes: type.duration_minutes,
    intervalMinutes: slotInterval(type),
    bufferBeforeMinutes: type.buffer_before_minutes,
    bufferAfterMinutes: type.buffer_after_minutes,
    minNoticeMinutes: type.min_notice_minutes,
    maxDaysAhead: type.max_days_ahead,
  };
}

/** A bookable start: its slot, what it holds, and who may take it, best first (null = the business). */
export interface BookingPlan {
  slot: Span;
  held: Span;
  candidates: (string | null)[];
}

export function bookingRules(service: ServiceContext, stores: FieldopsStores) {
  const { db, clock } = service;
  const { appointments, appointmentTypes, reservations } = stores;

  /** The active appointment type of a request, or a violation on appointment_type_id. */
  async function activeType(
    orgId: string,
    id: string,
    violations: Violation[],
  ): Promise<AppointmentTypeRow | undefined> {
    const type = await appointmentTypes.get(db, orgId, id);
    if (type?.is_active) return type;
    violations.push(
      type
        ? invalidValue("appointment_type_id", "the appointment type is not active", id)
        : referenceNotFound("appointment_type_id", "appointment type", id),
    );
    return undefined;
  }

  /**
   * Checks that `start` is a slot of the type (422 on `start` otherwise) and that somebody is
   * free then, neither booked nor held (409 otherwise), preferring `keep` (a rescheduled
   * appointment's technician).
   */
  async function planBooking(
    tx: Queryable,
    org: OrgContext,
    type: AppointmentTypeRow,
    start: Date,
    options: { technicianId?: string; ignoreAppointmentId?: string; keep?: string | null },
  ): Promise<BookingPlan> {
    const now = clock.now();
    const rules = rulesOf(type);
    const day = DateTime.fromJSDate(start, { zone: org.timezone }).startOf("day");
    const daySpan = { start: day.toMillis(), end: day.plus({ days: 1 }).toMillis() };
    const slot = candidateSlots(org.businessHours, org.timezone, daySpan, rules, now).find(
      (candidate) => candidate.start === start.getTime(),
    );
    if (!slot) {
      throw invalidArgument([
        invalidValue(
          "start",
          "not a slot of this appointment type: inside business hours, on the slot grid, after the minimum notice and within max_days_ahead",
          start.toISOString(),
        ),
      ]);
    }
    const held = heldSpan(slot, rules);
    const snapshot = await appointments.snapshot(tx, org.orgId, {
      from: new Date(Math.min(daySpan.start, held.start)),
      to: new Date(Math.max(daySpan.end, held.end)),
      now,
      requiredSkills: type.required_skills,
      technicianId: options.technicianId,
      ignoreAppointmentId: options.ignoreAppointmentId,
    });
    if (
      options.technicianId !== undefined &&
      !snapshot.technicians.some((technician) => technician.id === options.technicianId)
    ) {
      throw invalidArgument([
        snapshot.askedTechnicianExists
          ? invalidValue(
              "technician_id",
              "the technician is not active or lacks a required skill of the appointment type",
              options.technicianId,
            )
          : referenceNotFound("technician_id", "technician", options.technicianId),
      ]);
    }
    const free = freeSlots(snapshot, [slot], rules, org.timezone, now)[0];
    if (!free) throw fieldopsErrors.SLOT_TAKEN();
    if (!snapshot.hasTechnicians) return { slot, held, candidates: [null] };
    const ranked = rankForBooking(snapshot, free.technicianIds, daySpan);
    const keep = options.keep ? ranked.indexOf(options.keep) : -1;
    if (keep > 0) ranked.unshift(...ranked.splice(keep, 1));
    return { slot, held, candidates: ranked };
  }

  /**
   * Claims the plan's time for its candidates in turn, each in its own transaction, until one
   * commits: `claim` runs after ReservationStore.prepareClaim (the resource's turn, expired holds
   * in the way cleared), with that candidate and the instant of the claim. The exclusion
   * constraint refusing every candidate (taken meanwhile) is a 409.
   */
  async function claimFirstThatFits<T>(
    ctx: HandlerContext,
    orgId: string,
    plan: BookingPlan,
    claim: (tx: Queryable, emit: Emit, technicianId: string | null, now: Date) => Promise<T>,
  ): Promise<T> {
    for (const technicianId of plan.candidates) {
      for (let tries = 1; ; tries++) {
        try {
          return await service.write(ctx, async (tx, emit) => {
            const now = clock.now();
            await reservations.prepareClaim(
              tx,
              orgId,
              technicianId,
              new Date(plan.held.start),
              new Date(plan.held.end),
              now,
            );
            return claim(tx, emit, technicianId, now);
          });
        } catch (error) {
          const code = pgErrorCode(error);
          // Claims of one resource take turns, so a deadlock is rare (another transaction's
          // locks); the slot may still be free.
          if (code === PgErrorCode.deadlockDetected && tries < MAX_DEADLOCK_TRIES) continue;
          if (code !== PgErrorCode.exclusionViolation) throw error;
          break;
        }
      }
    }
    throw fieldopsErrors.SLOT_TAKEN();
  }

  return { activeType, planBooking, claimFirstThatFits };
}
