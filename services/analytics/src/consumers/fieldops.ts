import { timestampDate } from "@bufbuild/protobuf/wkt";
import { enumToJson, handlerOf, type Queryable, type StreamConsumer } from "@voiceops/platform";
import {
  AppointmentBookedSchema,
  AppointmentCancelledSchema,
  AppointmentRescheduledSchema,
  AppointmentUpdatedSchema,
  DispatchCancelledSchema,
  DispatchCreatedSchema,
  DispatchUpdatedSchema,
  OnCallScheduleCancelledSchema,
  OnCallScheduleCreatedSchema,
  OnCallScheduleUpdatedSchema,
  ServiceProviderCreatedSchema,
  ServiceProviderDeletedSchema,
  ServiceProviderUpdatedSchema,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_events_pb";
import {
  AppointmentStatusSchema,
  DispatchStatus,
  OnCallScheduleStatus,
  type Appointment,
  type Dispatch,
  type OnCallSchedule,
  type ServiceProvider,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";
import { addToBuckets } from "../store/buckets.js";
import { Counter, Metric } from "../model/names.js";
import { applyRecord, hasRecord } from "../store/records.js";
import { setUpcoming } from "../store/upcoming.js";

async function applyTechnician(tx: Queryable, orgId: string, provider: ServiceProvider): Promise<void> {
  await applyRecord(tx, orgId, "technician", provider.id, {
    counters: [],
    attrs: { on_call: provider.isOnCall, name: provider.name },
    version: provider.updatedAt ? timestampDate(provider.updatedAt) : undefined,
  });
}

const FINISHED_DISPATCH = new Set([DispatchStatus.COMPLETED, DispatchStatus.CANCELLED]);

async function applyDispatch(tx: Queryable, orgId: string, dispatch: Dispatch): Promise<void> {
  await applyRecord(tx, orgId, "dispatch", dispatch.id, {
    counters: FINISHED_DISPATCH.has(dispatch.status) ? [] : [Counter.dispatchesActive],
    version: dispatch.updatedAt ? timestampDate(dispatch.updatedAt) : undefined,
  });
}

/** A scheduled shift comes up at its start and counts its technician as on call until its end. */
async function applySchedule(tx: Queryable, orgId: string, schedule: OnCallSchedule): Promise<void> {
  const start = schedule.startAt ? timestampDate(schedule.startAt) : undefined;
  const end = schedule.endAt ? timestampDate(schedule.endAt) : undefined;
  const scheduled = schedule.status === OnCallScheduleStatus.SCHEDULED && start && end;
  const name = schedule.technician?.name;
  await setUpcoming(
    tx,
    orgId,
    "on_call_shift",
    schedule.id,
    scheduled
      ? {
          at: start,
          endsAt: end,
          title: name ? `On call: ${name}` : "On-call shift",
          technicianId: schedule.technicianId,
        }
      : null,
  );
}

const ACTIVE_APPOINTMENT = new Set(["scheduled", "confirmed"]);

/** An appointment counts under its status, and comes up at its start while it is active. */
async function applyAppointment(tx: Queryable, orgId: string, appointment: Appointment): Promise<void> {
  const status = enumToJson(AppointmentStatusSchema, appointment.status) ?? "scheduled";
  const applied = await applyRecord(tx, orgId, "appointment", appointment.id, {
    counters: [Counter.appointmentStatus(status)],
    version: appointment.updatedAt ? timestampDate(appointment.updatedAt) : undefined,
  });
  if (applied === undefined) return;
  const start = appointment.startAt ? timestampDate(appointment.startAt) : undefined;
  const who = appointment.contact?.name;
  const what = appointment.appointmentType?.name ?? "Appointment";
  await setUpcoming(
    tx,
    orgId,
    "appointment",
    appointment.id,
    ACTIVE_APPOINTMENT.has(status) && start
      ? {
          at: start,
          title: who ? `${what} with ${who}` : what,
          contactId: appointment.contactId || null,
          technicianId: appointment.technicianId ?? null,
        }
      : null,
  );
}

/** Technicians, their on-call flag and shifts, emergency dispatches and appointments, as field ops published them. */
export const fieldopsConsumer: StreamConsumer = {
  durable: "analytics-fieldops",
  subject: "fieldops.>",
  handlers: {
    "fieldops.provider.created": handlerOf(ServiceProviderCreatedSchema, async (event, tx) => {
      if (event.payload.provider) await applyTechnician(tx, event.orgId, event.payload.provider);
    }),
    "fieldops.provider.updated": handlerOf(ServiceProviderUpdatedSchema, async (event, tx) => {
      if (event.payload.provider) await applyTechnician(tx, event.orgId, event.payload.provider);
    }),
    "fieldops.provider.deleted": handlerOf(ServiceProviderDeletedSchema, async (event, tx) => {
      const id = event.payload.providerId.toLowerCase();
      await applyRecord(tx, event.orgId, "technician", id, null);
      // The technician's shifts go with them; their appointments follow their own events.
      await tx.query(
        `DELETE FROM analytics.upcoming WHERE org_id = $1 AND type = 'on_call_shift' AND technician_id = $2`,
        [event.orgId, id],
      );
    }),
    "fieldops.on_call_schedule.created": handlerOf(OnCallScheduleCreatedSchema, async (event, tx) => {
      if (event.payload.schedule) await applySchedule(tx, event.orgId, event.payload.schedule);
    }),
    "fieldops.on_call_schedule.updated": handlerOf(OnCallScheduleUpdatedSchema, async (event, tx) => {
      if (event.payload.schedule) await applySchedule(tx, event.orgId, event.payload.schedule);
    }),
    "fieldops.on_call_schedule.cancelled": handlerOf(OnCallScheduleCancelledSchema, async (event, tx) => {
      if (event.payload.schedule) await setUpcoming(tx, event.orgId, "on_call_shift", event.payload.schedule.id, null);
    }),
    "fieldops.appointment.booked": handlerOf(AppointmentBookedSchema, async (event, tx) => {
      const appointment = event.payload.appointment;
      if (!appointment) return;
      const seen = await hasRecord(tx, event.orgId, "appointment", appointment.id);
      await applyAppointment(tx, event.orgId, appointment);
      // Booked once: a redelivered event finds its record.
      if (!seen)
        await addToBuckets(
          tx,
          event.orgId,
          appointment.createdAt ? timestampDate(appointment.createdAt) : event.occurredAt,
          { [Metric.appointmentsBooked]: 1 },
        );
    }),
    // A reschedule moves a booking: the old appointment is cancelled, the new one is not a new booking.
    "fieldops.appointment.rescheduled": handlerOf(AppointmentRescheduledSchema, async (event, tx) => {
      if (event.payload.previous) await applyAppointment(tx, event.orgId, event.payload.previous);
      if (event.payload.appointment) await applyAppointment(tx, event.orgId, event.payload.appointment);
    }),
    "fieldops.appointment.cancelled": handlerOf(AppointmentCancelledSchema, async (event, tx) => {
      if (event.payload.appointment) await applyAppointment(tx, event.orgId, event.payload.appointment);
    }),
    "fieldops.appointment.updated": handlerOf(AppointmentUpdatedSchema, async (event, tx) => {
      if (event.payload.appointment) await applyAppointment(tx, event.orgId, event.payload.appointment);
    }),
    "fieldops.dispatch.created": handlerOf(DispatchCreatedSchema, async (event, tx) => {
      if (event.payload.dispatch) await applyDispatch(tx, event.orgId, event.payload.dispatch);
    }),
    "fieldops.dispatch.updated": handlerOf(DispatchUpdatedSchema, async (event, tx) => {
      if (event.payload.dispatch) await applyDispatch(tx, event.orgId, event.payload.dispatch);
    }),
    "fieldops.dispatch.cancelled": handlerOf(DispatchCancelledSchema, async (event, tx) => {
      if (event.payload.dispatch) await applyDispatch(tx, event.orgId, event.payload.dispatch);
    }),
  },
};
