import { create } from "@bufbuild/protobuf";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  columnValues,
  invalidArgument,
  newEvent,
  orgOf,
  requiredText,
  updatedFields,
  withDefaults,
  type DomainEvent,
  type ServiceContext,
  notFound,
} from "@voiceops/platform";
import {
  AppointmentTypeCreatedSchema,
  AppointmentTypeDeletedSchema,
  AppointmentTypeUpdatedSchema,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_events_pb";
import {
  AppointmentTypeFieldsSchema,
  CreateAppointmentTypeRequestSchema,
  ListAppointmentTypesRequestSchema,
  type AppointmentTypeFields,
  type CreateAppointmentTypeRequest,
  type DeleteAppointmentTypeRequest,
  type FieldopsService,
  type ListAppointmentTypesRequest,
  type UpdateAppointmentTypeRequest,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";
import {
  APPOINTMENT_TYPE_FIELDS,
  toAppointmentType,
  type AppointmentTypeField,
  type AppointmentTypeRow,
  type AppointmentTypeValues,
} from "../store/appointment-types.js";
import type { FieldopsStores } from "../store/index.js";

function typeEvent(orgId: string, verb: "created" | "updated", row: AppointmentTypeRow): DomainEvent {
  const appointmentType = toAppointmentType(row);
  const type = `fieldops.appointment_type.${verb}`;
  if (verb === "created")
    return newEvent(
      orgId,
      type,
      AppointmentTypeCreatedSchema,
      create(AppointmentTypeCreatedSchema, { appointmentType }),
    );
  return newEvent(orgId, type, AppointmentTypeUpdatedSchema, create(AppointmentTypeUpdatedSchema, { appointmentType }));
}

/** The values of a create request: every column named, so each has its value or its declared default. */
function createValues(req: CreateAppointmentTypeRequest): AppointmentTypeValues {
  const { values, violations } = columnValues<AppointmentTypeValues>(
    CreateAppointmentTypeRequestSchema,
    req,
    APPOINTMENT_TYPE_FIELDS,
    { overrides: { name: requiredText } },
  );
  if (violations.length > 0) throw invalidArgument(violations);
  return values as AppointmentTypeValues;
}

/** A row's values with the updated fields applied; null makes the slot interval follow the duration again. */
function updatedValues(
  current: AppointmentTypeRow,
  input: AppointmentTypeFields,
  fields: readonly AppointmentTypeField[],
): AppointmentTypeValues {
  const { values, violations } = columnValues<AppointmentTypeValues>(AppointmentTypeFieldsSchema, input, fields, {
    prefix: "appointment_type.",
    overrides: { name: requiredText },
  });
  if (violations.length > 0) throw invalidArgument(violations);
  return { ...current, ...values };
}

export function appointmentTypeHandlers(service: ServiceContext, stores: FieldopsStores) {
  const { db, clock } = service;
  const store = stores.appointmentTypes;
  return {
    async listAppointmentTypes(req: ListAppointmentTypesRequest, ctx: HandlerContext) {
      const { includeInactive } = withDefaults(ListAppointmentTypesRequestSchema, req, "includeInactive");
      const rows = await store.list(db, orgOf(ctx).orgId, includeInactive);
      return { items: rows.map(toAppointmentType), total: rows.length };
    },

    async createAppointmentType(req: CreateAppointmentTypeRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const values = createValues(req);
      const row = await service.write(ctx, async (tx, emit) => {
        const inserted = await store.insert(tx, org.orgId, values, clock.now());
        emit(typeEvent(org.orgId, "created", inserted));
        return inserted;
      });
      return { appointmentType: toAppointmentType(row) };
    },

    async updateAppointmentType(req: UpdateAppointmentTypeRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const fields = updatedFields(
        AppointmentTypeFieldsSchema,
        req.appointmentType,
        req.updateMask,
        APPOINTMENT_TYPE_FIELDS,
      );
      const input = req.appointmentType ?? create(AppointmentTypeFieldsSchema);
      const row = await service.write(ctx, async (tx, emit) => {
        const current = await store.get(tx, org.orgId, req.appointmentTypeId, { forUpdate: true });
        if (!current) throw notFound("Appointment type");
        if (fields.length === 0) return current;
        const updated = await store.update(
          tx,
          org.orgId,
          current.id,
          updatedValues(current, input, fields),
          clock.now(),
        );
        if (!updated) throw notFound("Appointment type");
        emit(typeEvent(org.orgId, "updated", updated));
        return updated;
      });
      return { appointmentType: toAppointmentType(row) };
    },

    async deleteAppointmentType(req: DeleteAppointmentTypeRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      await service.write(ctx, async (tx, emit) => {
        if (!(await store.delete(tx, org.orgId, req.appointmentTypeId, clock.now())))
          throw notFound("Appointment type");
        const payload = create(AppointmentTypeDeletedSchema, {
          appointmentTypeId: req.appointmentTypeId.toLowerCase(),
        });
        emit(newEvent(org.orgId, "fieldops.appointment_type.deleted", AppointmentTypeDeletedSchema, payload));
      });
      return {};
    },
  } satisfies Partial<ServiceImpl<typeof FieldopsService>>;
}
