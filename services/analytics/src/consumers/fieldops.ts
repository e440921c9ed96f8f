import { timestampDate } from "@bufbuild/protobuf/wkt";
import { handlerOf, type Queryable, type StreamConsumer } from "@voiceops/platform";
import {
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
  DispatchStatus,
  OnCallScheduleStatus,
  type Dispatch,
  type OnCallSchedule,
  type ServiceProvider,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";
import { Counter } from "../model/names.js";
import { applyRecord } from "../model/records.js";
import { setUpcoming } from "../model/upcoming.js";

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
    scheduled ? { at: start, endsAt: end, title: name ? `On call: ${name}` : "On-call shift", technicianId: schedule.technicianId } : null,
  );
}

/** Technicians and their on-call flag and shifts, and emergency dispatches, as field ops published them. */
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
      await tx.query(`DELETE FROM analytics.upcoming WHERE org_id = $1 AND technician_id = $2`, [event.orgId, id]);
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
