import { create } from "@bufbuild/protobuf";
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  blankToNull,
  invalidArgument,
  orgOf,
  updatedFields,
  notFound,
  required,
  referenceNotFound,
  invalidValue,
  type OrgContext,
  type Queryable,
  type ServiceContext,
  type Violation,
} from "@voiceops/platform";
import {
  OnCallScheduleFieldsSchema,
  type CancelOnCallScheduleRequest,
  type CreateOnCallScheduleRequest,
  type FieldopsService,
  type ListOnCallSchedulesRequest,
  type UpdateOnCallScheduleRequest,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";
import { toOnCallSchedule, type ScheduleValues } from "../store/schedules.js";
import { scheduleEvent } from "../scheduling/schedule-events.js";
import type { FieldopsStores } from "../store/index.js";
import { fieldopsErrors } from "../errors.js";

const SCHEDULE_FIELDS = ["technician_id", "start_at", "end_at", "notes"] as const;

function instant(value: Timestamp | undefined): Date | undefined {
  return value ? timestampDate(value) : undefined;
}

export function scheduleHandlers(service: ServiceContext, stores: FieldopsStores) {
  const { db, clock } = service;
  const { schedules, technicians } = stores;

  /** 409 when the technician already has a scheduled schedule overlapping the values. */
  async function refuseOverlap(
    tx: Queryable,
    org: OrgContext,
    values: ScheduleValues,
    exceptId?: string,
  ): Promise<void> {
    const other = await schedules.findOverlap(
      tx,
      org.orgId,
      values.technician_id,
      values.start_at,
      values.end_at,
      exceptId,
    );
    if (other) throw fieldopsErrors.ON_CALL_OVERLAP(other);
  }

  return {
    async listOnCallSchedules(req: ListOnCallSchedulesRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const from = instant(req.startDate);
      const to = instant(req.endDate);
      if (from && to && to < from) {
        throw invalidArgument([invalidValue("end_date", "end_date must not be before start_date", to.toISOString())]);
      }
      const rows = await schedules.list(db, org.orgId, {
        from: from ?? clock.now(),
        to,
        technicianId: req.technicianId,
      });
      return { items: rows.map(toOnCallSchedule), total: rows.length };
    },

    async createOnCallSchedule(req: CreateOnCallScheduleRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const start = instant(req.startAt);
      const end = instant(req.endAt);
      const row = await service.write(ctx, async (tx, emit) => {
        const violations: Violation[] = [];
        // Locked until commit: overlap checks of one technician never interleave.
        const technician = await technicians.lock(tx, org.orgId, req.technicianId);
        if (!technician) violations.push(referenceNotFound("technician_id", "technician", req.technicianId));
        if (!start) violations.push(required("start_at"));
        if (!end) violations.push(required("end_at"));
        else if (start && end <= start)
          violations.push(invalidValue("end_at", "end_at must be after start_at", end.toISOString()));
        if (violations.length > 0 || !technician || !start || !end) throw invalidArgument(violations);
        const values: ScheduleValues = {
          technician_id: technician.id,
          start_at: start,
          end_at: end,
          notes: blankToNull(req.notes),
        };
        await refuseOverlap(tx, org, values);
        const inserted = await schedules.insert(tx, org.orgId, values, clock.now());
        emit(scheduleEvent(org.orgId, "created", inserted));
        return inserted;
      });
      return { schedule: toOnCallSchedule(row) };
    },

    async updateOnCallSchedule(req: UpdateOnCallScheduleRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const fields = updatedFields(OnCallScheduleFieldsSchema, req.schedule, req.updateMask, SCHEDULE_FIELDS);
      const input = req.schedule ?? create(OnCallScheduleFieldsSchema);
      const row = await service.write(ctx, async (tx, emit) => {
        const before = await schedules.get(tx, org.orgId, req.scheduleId);
        if (!before) throw notFound("On-call schedule");
        if (before.status !== "scheduled") throw fieldopsErrors.ON_CALL_SCHEDULE_CANCELLED();
        if (fields.length === 0) return before;
        // Technicians first, then the schedule (the order a technician's deletion takes too), in
        // id order, so two writers never wait on each other.
        const violations: Violation[] = [];
        const wanted =
          fields.includes("technician_id") && input.technicianId
            ? input.technicianId.toLowerCase()
            : before.technician_id;
        for (const id of [...new Set([before.technician_id, wanted])].sort()) {
          const locked = await technicians.lock(tx, org.orgId, id);
          if (!locked && id === wanted)
            violations.push(referenceNotFound("schedule.technician_id", "technician", input.technicianId ?? id));
        }
        const current = await schedules.get(tx, org.orgId, req.scheduleId, { forUpdate: true });
        if (!current) throw notFound("On-call schedule");
        if (current.status !== "scheduled" || current.technician_id !== before.technician_id) {
          throw fieldopsErrors.ON_CALL_SCHEDULE_CHANGED();
        }
        const values: ScheduleValues = {
          technician_id: wanted,
          start_at: fields.includes("start_at") ? (instant(input.startAt) ?? current.start_at) : current.start_at,
          end_at: fields.includes("end_at") ? (instant(input.endAt) ?? current.end_at) : current.end_at,
          notes: fields.includes("notes") ? blankToNull(input.notes) : current.notes,
        };
        if (values.end_at <= values.start_at) {
          const field = fields.includes("end_at") ? "schedule.end_at" : "schedule.start_at";
          violations.push(
            invalidValue(
              field,
              "end_at must be after start_at",
              (field.endsWith("end_at") ? values.end_at : values.start_at).toISOString(),
            ),
          );
        }
        if (violations.length > 0) throw invalidArgument(violations);
        await refuseOverlap(tx, org, values, current.id);
        const updated = await schedules.update(tx, org.orgId, current.id, values, clock.now());
        if (!updated) throw notFound("On-call schedule");
        emit(scheduleEvent(org.orgId, "updated", updated));
        return updated;
      });
      return { schedule: toOnCallSchedule(row) };
    },

    async cancelOnCallSchedule(req: CancelOnCallScheduleRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      await service.write(ctx, async (tx, emit) => {
        const cancelled = await schedules.cancel(tx, org.orgId, req.scheduleId, clock.now());
        if (cancelled) emit(scheduleEvent(org.orgId, "cancelled", cancelled));
        // Cancelling a cancelled schedule again succeeds; an unknown one is a 404.
        else if (!(await schedules.get(tx, org.orgId, req.scheduleId))) throw notFound("On-call schedule");
      });
      return {};
    },
  } satisfies Partial<ServiceImpl<typeof FieldopsService>>;
}
