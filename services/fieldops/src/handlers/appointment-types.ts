import { create } from "@bufbuild/protobuf";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  blankToNull,
  distinctLabels,
  invalidArgument,
  newEvent,
  orgOf,
  updatedFields,
  notFound,
  required,
  wrongType,
  type DomainEvent,
  type ServiceContext,
} from "@voiceops/platform";
import { AppointmentTypeCreatedSchema, AppointmentTypeDeletedSchema, AppointmentTypeUpdatedSchema } from "@voiceops/proto/voiceops/fieldops/v1/fieldops_events_pb";
import {
  AppointmentTypeFieldsSchema,
  type AppointmentTypeFields,
  type CreateAppointmentTypeRequest,
  type DeleteAppointmentTypeRequest,
  type FieldopsService,
  type ListAppointmentTypesRequest,
  type UpdateAppointmentTypeRequest,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";
import { APPOINTMENT_TYPE_FIELDS, toAppointmentType, type AppointmentTypeRow, type AppointmentTypeValues } from "../store/appointment-types.js";
import type { FieldopsStores } from "../store/index.js";

function typeEvent(orgId: string, verb: "created" | "updated", row: AppointmentTypeRow): DomainEvent {
  const appointmentType = toAppointmentType(row);
  const type = `fieldops.appointment_type.${verb}`;
  if (verb === "created") return newEvent(orgId, type, AppointmentTypeCreatedSchema, create(AppointmentTypeCreatedSchema, { appointmentType }));
  return newEvent(orgId, type, AppointmentTypeUpdatedSchema, create(AppointmentTypeUpdatedSchema, { appointmentType }));
}

/** The values of a create request, defaults applied (the gateway applies them too; gRPC callers may not). */
function createValues(req: CreateAppointmentTypeRequest): AppointmentTypeValues {
  const name = blankToNull(req.name);
  if (name === null) throw invalidArgument([required("name")]);
  return {
    name,
    description: blankToNull(req.description),
    duration_minutes: req.durationMinutes,
    slot_interval_minutes: req.slotIntervalMinutes ?? null,
    buffer_before_minutes: req.bufferBeforeMinutes ?? 0,
    buffer_after_minutes: req.bufferAfterMinutes ?? 0,
    min_notice_minutes: req.minNoticeMinutes ?? 60,
    max_days_ahead: req.maxDaysAhead ?? 60,
    required_skills: distinctLabels(req.requiredSkills),
    is_active: req.isActive ?? true,
  };
}

/** A row's values with the updated fields applied; null makes the slot interval follow the duration again. */
function updatedValues(current: AppointmentTypeRow, input: AppointmentTypeFields, fields: readonly string[]): AppointmentTypeValues {
  const next: AppointmentTypeValues = { ...current, required_skills: [...current.required_skills] };
  for (const field of fields) {
    switch (field) {
      case "name": {
        const name = blankToNull(input.name);
        if (name === null) throw invalidArgument([wrongType("appointment_type.name", "string", null)]);
        next.name = name;
        break;
      }
      case "description":
        next.description = blankToNull(input.description);
        break;
      case "slot_interval_minutes":
        next.slot_interval_minutes = input.slotIntervalMinutes ?? null;
        break;
      case "required_skills":
        next.required_skills = distinctLabels(input.requiredSkills);
        break;
      case "is_active":
        if (input.isActive !== undefined) next.is_active = input.isActive;
        break;
      case "duration_minutes":
        if (input.durationMinutes !== undefined) next.duration_minutes = input.durationMinutes;
        break;
      case "buffer_before_minutes":
        if (input.bufferBeforeMinutes !== undefined) next.buffer_before_minutes = input.bufferBeforeMinutes;
        break;
      case "buffer_after_minutes":
        if (input.bufferAfterMinutes !== undefined) next.buffer_after_minutes = input.bufferAfterMinutes;
        break;
      case "min_notice_minutes":
        if (input.minNoticeMinutes !== undefined) next.min_notice_minutes = input.minNoticeMinutes;
        break;
      case "max_days_ahead":
        if (input.maxDaysAhead !== undefined) next.max_days_ahead = input.maxDaysAhead;
        break;
    }
  }
  return next;
}

export function appointmentTypeHandlers(service: ServiceContext, stores: FieldopsStores) {
  const { db, clock } = service;
  const store = stores.appointmentTypes;
  return {
    async listAppointmentTypes(req: ListAppointmentTypesRequest, ctx: HandlerContext) {
      const rows = await store.list(db, orgOf(ctx).orgId, req.includeInactive ?? false);
      return { items: rows.map(toAppointmentType), total: rows.length };
    },

    async createAppointmentType(req: CreateAppointmentTypeRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const values = createValues(req);
      const row = await service.write(async (tx, emit) => {
        const inserted = await store.insert(tx, org.orgId, values, clock.now());
        emit(typeEvent(org.orgId, "created", inserted));
        return inserted;
      });
      return { appointmentType: toAppointmentType(row) };
    },

    async updateAppointmentType(req: UpdateAppointmentTypeRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const fields = updatedFields(AppointmentTypeFieldsSchema, req.appointmentType, req.updateMask, APPOINTMENT_TYPE_FIELDS);
      const input = req.appointmentType ?? create(AppointmentTypeFieldsSchema);
      const row = await service.write(async (tx, emit) => {
        const current = await store.get(tx, org.orgId, req.appointmentTypeId, { forUpdate: true });
        if (!current) throw notFound("Appointment type");
        if (fields.length === 0) return current;
        const updated = await store.update(tx, org.orgId, current.id, updatedValues(current, input, fields), clock.now());
        if (!updated) throw notFound("Appointment type");
        emit(typeEvent(org.orgId, "updated", updated));
        return updated;
      });
      return { appointmentType: toAppointmentType(row) };
    },

    async deleteAppointmentType(req: DeleteAppointmentTypeRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      await service.write(async (tx, emit) => {
        if (!(await store.delete(tx, org.orgId, req.appointmentTypeId, clock.now()))) throw notFound("Appointment type");
        const payload = create(AppointmentTypeDeletedSchema, { appointmentTypeId: req.appointmentTypeId.toLowerCase() });
        emit(newEvent(org.orgId, "fieldops.appointment_type.deleted", AppointmentTypeDeletedSchema, payload));
      });
      return {};
    },
  } satisfies Partial<ServiceImpl<typeof FieldopsService>>;
}
