import { create } from "@bufbuild/protobuf";
import { type Timestamp, timestampDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { DateTime } from "luxon";
import {
  blankToNull,
  invalidArgument,
  isCalendarDate,
  localDate,
  newEvent,
  orgOf,
  notFound,
  shiftDate,
  required,
  referenceNotFound,
  invalidValue,
  notAllowed,
  badFormat,
  type DomainEvent,
  type OrgContext,
  type ServiceContext,
  type Violation,
  zoneOffsetMinutes,
  pageAnswer,
  pageRequest,
} from "@voiceops/platform";
import {
  AppointmentBookedSchema,
  AppointmentCancelledSchema,
  AppointmentRescheduledSchema,
  AppointmentUpdatedSchema,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_events_pb";
import {
  ListAppointmentsRequestSchema,
  AppointmentAction,
  type BookAppointmentRequest,
  type CheckAvailabilityRequest,
  type FieldopsService,
  type ListAppointmentsRequest,
  type ManageAppointmentRequest,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";
import { freeSlots } from "../scheduling/availability.js";
import { candidateSlots, daysBetween, heldSpan, localDateRange } from "../scheduling/slots.js";
import type { AppointmentTypeRow } from "../store/appointment-types.js";
import {
  appointmentStatusOf,
  appointmentStatusText,
  toAppointment,
  type AppointmentRow,
  type NewAppointment,
} from "../store/appointments.js";
import type { FieldopsStores } from "../store/index.js";
import type { SlotHoldRow } from "../store/slot-holds.js";
import { type BookingPlan, bookingRules, rulesOf } from "../scheduling/booking.js";
import type { PeerLookups } from "../peers.js";
import { fieldopsErrors } from "../errors.js";

const MAX_RANGE_DAYS = 31;
const FINISHED = new Set(["completed", "cancelled", "no_show"]);

/**
 * Writes instants as RFC 3339 with the zone's offset at each, to the second, as luxon does; the
 * offsets come from the platform's remembered ones (asking Intl per slot is the costly part).
 */
function localIsoWriter(zone: string): (ms: number) => string {
  const suffixes = new Map<number, string>();
  return (ms) => {
    const offset = zoneOffsetMinutes(zone, ms);
    let suffix = suffixes.get(offset);
    if (suffix === undefined) {
      suffix = (DateTime.fromMillis(ms, { zone }).toISO({ suppressMilliseconds: true }) ?? "").slice(19);
      suffixes.set(offset, suffix);
    }
    return new Date(ms + offset * 60_000).toISOString().slice(0, 19) + suffix;
  };
}

/** A YYYY-MM-DD field, or a violation naming it. */
function dateField(field: string, value: string | undefined, violations: Violation[]): string | undefined {
  if (value === undefined) return undefined;
  if (!isCalendarDate(value)) {
    violations.push(badFormat(field, "date", value));
    return undefined;
  }
  return value;
}

function appointmentEvent(orgId: string, row: AppointmentRow, previous?: AppointmentRow): DomainEvent {
  const appointment = toAppointment(row);
  if (!previous)
    return newEvent(
      orgId,
      "fieldops.appointment.booked",
      AppointmentBookedSchema,
      create(AppointmentBookedSchema, { appointment }),
    );
  const previousStatus = appointmentStatusOf(previous.status);
  if (row.status === "cancelled") {
    return newEvent(
      orgId,
      "fieldops.appointment.cancelled",
      AppointmentCancelledSchema,
      create(AppointmentCancelledSchema, { appointment, previousStatus }),
    );
  }
  return newEvent(
    orgId,
    "fieldops.appointment.updated",
    AppointmentUpdatedSchema,
    create(AppointmentUpdatedSchema, { appointment, previousStatus }),
  );
}

/** A held slot as a booking plan: its time, its claim, its technician. */
function planOfHold(hold: SlotHoldRow): BookingPlan {
  return {
    slot: { start: hold.start_at.getTime(), end: hold.end_at.getTime() },
    held: { start: hold.held_from.getTime(), end: hold.held_to.getTime() },
    candidates: [hold.technician_id],
  };
}

/** A booking of a hold books what is held: a type, start or technician other than the hold's is a violation. */
function holdMismatches(hold: SlotHoldRow, req: BookAppointmentRequest, technicianId: string | undefined): Violation[] {
  const violations: Violation[] = [];
  if (req.appointmentTypeId.toLowerCase() !== hold.appointment_type_id) {
    violations.push(
      invalidValue("appointment_type_id", "the hold is for another appointment type", req.appointmentTypeId),
    );
  }
  if (req.start && timestampDate(req.start).getTime() !== hold.start_at.getTime()) {
    violations.push(invalidValue("start", "the hold is for another start", timestampDate(req.start).toISOString()));
  }
  if (technicianId !== undefined && technicianId !== hold.technician_id) {
    violations.push(invalidValue("technician_id", "the hold is for another technician", technicianId));
  }
  return violations;
}

export function appointmentHandlers(service: ServiceContext, stores: FieldopsStores, lookups: PeerLookups) {
  const { db, clock } = service;
  const { appointments, appointmentTypes, slotHolds } = stores;
  const { activeType, planBooking, claimFirstThatFits } = bookingRules(service, stores);

  function newAppointment(
    type: AppointmentTypeRow,
    plan: BookingPlan,
    technicianId: string | null,
    rest: Omit<
      NewAppointment,
      "appointment_type_id" | "technician_id" | "start_at" | "end_at" | "held_from" | "held_to"
    >,
  ): NewAppointment {
    return {
      ...rest,
      appointment_type_id: type.id,
      technician_id: technicianId,
      start_at: new Date(plan.slot.start),
      end_at: new Date(plan.slot.end),
      held_from: new Date(plan.held.start),
      held_to: new Date(plan.held.end),
    };
  }

  async function reschedule(
    ctx: HandlerContext,
    org: OrgContext,
    req: ManageAppointmentRequest,
    current: AppointmentRow,
  ): Promise<AppointmentRow> {
    if (!req.start) throw invalidArgument([required("start", "the new start of a rescheduled appointment")]);
    const start = timestampDate(req.start);
    const type = await appointmentTypes.get(db, org.orgId, current.appointment_type_id);
    if (!type?.is_active) throw fieldopsErrors.APPOINTMENT_TYPE_NOT_BOOKABLE();
    const plan = await planBooking(db, org, type, start, {
      ignoreAppointmentId: current.id,
      keep: current.technician_id,
    });
    // One transaction: the old one is cancelled and the new one booked, or neither.
    return claimFirstThatFits(ctx, org.orgId, plan, async (tx, emit, technicianId, now) => {
      const old = await appointments.get(tx, org.orgId, current.id, { forUpdate: true });
      if (!old) throw notFound("Appointment");
      if (FINISHED.has(old.status)) throw fieldopsErrors.APPOINTMENT_FINISHED(old.status);
      const cancelled = await appointments.setStatus(tx, org.orgId, old.id, "cancelled", "rescheduled", now);
      if (!cancelled) throw notFound("Appointment");
      const values = newAppointment(type, plan, technicianId, {
        contact_id: old.contact_id,
        contact_name: old.contact_name,
        contact_phone: old.contact_phone,
        service_request_id: old.service_request_id,
        notes: old.notes,
        rescheduled_from_id: old.id,
      });
      const booked = await appointments.insert(tx, org.orgId, values, now);
      const payload = create(AppointmentRescheduledSchema, {
        appointment: toAppointment(booked),
        previous: toAppointment(cancelled),
      });
      emit(newEvent(org.orgId, "fieldops.appointment.rescheduled", AppointmentRescheduledSchema, payload));
      return booked;
    });
  }

  return {
    async checkAvailability(req: CheckAvailabilityRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const now = clock.now();
      const zone = req.timezone ?? org.timezone;
      const violations: Violation[] = [];
      const type = await activeType(org.orgId, req.appointmentTypeId, violations);
      const dateFrom =
        dateField("date_from", req.dateFrom, violations) ??
        (req.dateFrom === undefined ? localDate(now, zone) : undefined);
      const dateTo =
        dateField("date_to", req.dateTo, violations) ??
        (req.dateTo === undefined && dateFrom ? shiftDate(dateFrom, 6) : undefined);
      if (dateFrom && dateTo) {
        const days = daysBetween(dateFrom, dateTo);
        if (days < 0) violations.push(invalidValue("date_to", "date_to must not be before date_from", dateTo));
        else if (days > MAX_RANGE_DAYS)
          violations.push(
            invalidValue("date_to", `date_to may be at most ${MAX_RANGE_DAYS} days after date_from`, dateTo),
          );
      }
      if (violations.length > 0 || !type || !dateFrom || !dateTo) throw invalidArgument(violations);
      const technicianId = req.technicianId?.toLowerCase();
      const rules = rulesOf(type);
      const candidates = candidateSlots(
        org.businessHours,
        org.timezone,
        localDateRange(zone, dateFrom, dateTo),
        rules,
        now,
      );
      const first = candidates[0];
      const last = candidates[candidates.length - 1];
      const snapshot = await appointments.snapshot(db, org.orgId, {
        from: new Date(first ? heldSpan(first, rules).start : now.getTime()),
        to: new Date(last ? heldSpan(last, rules).end : now.getTime() + 1),
        now,
        requiredSkills: type.required_skills,
        technicianId,
      });
      if (technicianId !== undefined && !snapshot.askedTechnicianExists)
        throw invalidArgument([referenceNotFound("technician_id", "technician", req.technicianId ?? technicianId)]);
      // An asked technician stands alone: without them there is nobody (not the business).
      const slots =
        technicianId !== undefined && snapshot.technicians.length === 0
          ? []
          : freeSlots(snapshot, candidates, rules, org.timezone, now);
      const write = localIsoWriter(zone);
      return {
        appointmentTypeId: type.id,
        timezone: zone,
        slots: slots.map((slot) => ({
          start: write(slot.start),
          end: write(slot.end),
          technicianIds: slot.technicianIds,
        })),
      };
    },

    async bookAppointment(req: BookAppointmentRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const violations: Violation[] = [];
      const technicianId = req.technicianId?.toLowerCase();
      const [type, request, hold] = await Promise.all([
        activeType(org.orgId, req.appointmentTypeId, violations),
        req.serviceRequestId === undefined ? undefined : lookups.serviceRequest(org, req.serviceRequestId),
        req.holdId === undefined ? undefined : slotHolds.getLive(db, org.orgId, req.holdId, clock.now()),
      ]);
      if (req.serviceRequestId !== undefined && !request)
        violations.push(referenceNotFound("service_request_id", "service request", req.serviceRequestId));
      if (req.contactId === undefined && !req.contact) violations.push(required("contact_id", "contact_id or contact"));
      if (!req.start && req.holdId === undefined) violations.push(required("start", "start, or hold_id"));
      if (hold) violations.push(...holdMismatches(hold, req, technicianId));
      if (violations.length > 0 || !type) throw invalidArgument(violations);
      if (req.holdId !== undefined && !hold) throw fieldopsErrors.SLOT_HOLD_GONE();
      const plan = hold
        ? planOfHold(hold)
        : await planBooking(db, org, type, timestampDate(req.start as Timestamp), { technicianId });
      const contact = await lookups.upsertContact(
        org,
        req.contactId !== undefined
          ? { contactId: req.contactId }
          : { name: req.contact?.name, phoneNumber: req.contact?.phoneNumber, email: req.contact?.email },
      );
      const row = await claimFirstThatFits(ctx, org.orgId, plan, async (tx, emit, candidate, now) => {
        // The hold ends with the booking, in its transaction: its claim gives way to the appointment's.
        if (hold && !(await slotHolds.take(tx, org.orgId, hold.id, now))) throw fieldopsErrors.SLOT_HOLD_GONE();
        const values = newAppointment(type, plan, candidate, {
          contact_id: contact.id,
          contact_name: contact.name ?? null,
          contact_phone: contact.phoneNumber ?? null,
          service_request_id: request?.id ?? null,
          notes: blankToNull(req.notes),
          rescheduled_from_id: null,
        });
        const booked = await appointments.insert(tx, org.orgId, values, now);
        emit(appointmentEvent(org.orgId, booked));
        return booked;
      });
      return { appointment: toAppointment(row) };
    },

    async manageAppointment(req: ManageAppointmentRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const current = await appointments.get(db, org.orgId, req.appointmentId);
      if (!current) throw notFound("Appointment");
      if (FINISHED.has(current.status)) throw fieldopsErrors.APPOINTMENT_FINISHED(current.status);
      if (req.action === AppointmentAction.RESCHEDULE)
        return { appointment: toAppointment(await reschedule(ctx, org, req, current)) };
      const target = {
        [AppointmentAction.CANCEL]: "cancelled",
        [AppointmentAction.CONFIRM]: "confirmed",
        [AppointmentAction.COMPLETE]: "completed",
        [AppointmentAction.NO_SHOW]: "no_show",
      }[req.action as number];
      if (!target)
        throw invalidArgument([notAllowed("action", null, ["reschedule", "cancel", "confirm", "complete", "no_show"])]);
      const row = await service.write(ctx, async (tx, emit) => {
        const locked = await appointments.get(tx, org.orgId, current.id, { forUpdate: true });
        if (!locked) throw notFound("Appointment");
        if (FINISHED.has(locked.status)) throw fieldopsErrors.APPOINTMENT_FINISHED(locked.status);
        if (locked.status === target) return locked;
        const reason = target === "cancelled" ? blankToNull(req.reason) : locked.cancel_reason;
        const updated = await appointments.setStatus(tx, org.orgId, locked.id, target, reason, clock.now());
        if (!updated) throw notFound("Appointment");
        emit(appointmentEvent(org.orgId, updated, locked));
        return updated;
      });
      return { appointment: toAppointment(row) };
    },

    async listAppointments(req: ListAppointmentsRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const violations: Violation[] = [];
      const dateFrom = dateField("date_from", req.dateFrom, violations) ?? localDate(clock.now(), org.timezone);
      const dateTo = dateField("date_to", req.dateTo, violations);
      if (dateTo && daysBetween(dateFrom, dateTo) < 0)
        violations.push(invalidValue("date_to", "date_to must not be before date_from", dateTo));
      if (violations.length > 0) throw invalidArgument(violations);
      const range = localDateRange(org.timezone, dateFrom, dateTo ?? dateFrom);
      const paging = pageRequest(ListAppointmentsRequestSchema, req);
      const listing = await appointments.list(db, org.orgId, {
        ...paging,
        from: new Date(range.start),
        to: dateTo ? new Date(range.end) : undefined,
        status: req.status === undefined ? undefined : appointmentStatusText(req.status),
        contactId: req.contactId,
        technicianId: req.technicianId,
      });
      return pageAnswer(paging, listing, toAppointment);
    },
  } satisfies Partial<ServiceImpl<typeof FieldopsService>>;
}
