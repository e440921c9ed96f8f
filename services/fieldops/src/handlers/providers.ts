import { create } from "@bufbuild/protobuf";
import type { FieldMask } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import {
  blankToNull,
  distinctLabels,
  invalidArgument,
  newEvent,
  orgOf,
  phoneInput,
  updatedFields,
  notFound,
  wrongType,
  type Emit,
  type OrgContext,
  type Queryable,
  type ServiceContext,
  type Violation,
} from "@voiceops/platform";
import { ServiceProviderCreatedSchema, ServiceProviderDeletedSchema, ServiceProviderUpdatedSchema } from "@voiceops/proto/voiceops/fieldops/v1/fieldops_events_pb";
import {
  type FieldopsService,
  ServiceProviderFieldsSchema,
  type CreateServiceProviderRequest,
  type ServiceProviderFields,
  type DeleteServiceProviderRequest,
  type GetServiceProviderRequest,
  type ListServiceProvidersRequest,
  type ServiceProviderStatus,
  type UpdateServiceProviderRequest,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";
import { PROVIDER_FIELDS, type ProviderField, type ProviderValues, type ServiceProviderStore } from "../store/providers.js";
import { providerStatusText, toServiceProvider, type ServiceProviderRow } from "../store/rows.js";
import type { FieldopsStores } from "../store/index.js";
import { scheduleEvent } from "./schedules.js";

/** The writable provider fields, as both the create request and ServiceProviderFields carry them. */
export interface ProviderInput {
  name?: string;
  phoneNumber?: string;
  email?: string;
  specialty?: string;
  skills: string[];
  status?: ServiceProviderStatus;
  isOnCall?: boolean;
  notes?: string;
}

/**
 * Column values for the named fields of a provider input. Phone numbers are normalized to
 * E.164 with the organization's country; a text that is no phone number is a violation.
 * Skills are trimmed, blanks dropped and duplicates removed (first spelling kept).
 */
function providerValues(input: ProviderInput, fields: Iterable<ProviderField>, country: string, prefix = ""): { values: ProviderValues; violations: Violation[] } {
  const values: ProviderValues = {};
  const violations: Violation[] = [];
  for (const field of fields) {
    switch (field) {
      case "name": {
        const name = blankToNull(input.name);
        // The gateway refuses null and blank names; this guards gRPC callers whose mask names
        // the field without a value.
        if (name === null) violations.push(wrongType(`${prefix}name`, "string", null));
        else values.name = name;
        break;
      }
      case "phone_number": {
        const phone = phoneInput(input.phoneNumber, country, `${prefix}phone_number`, violations);
        if (phone !== undefined) values.phone_number = phone;
        break;
      }
      case "email":
        values.email = blankToNull(input.email);
        break;
      case "specialty":
        values.specialty = blankToNull(input.specialty);
        break;
      case "skills":
        values.skills = distinctLabels(input.skills);
        break;
      case "status":
        if (input.status !== undefined) values.status = providerStatusText(input.status);
        break;
      case "is_on_call":
        if (input.isOnCall !== undefined) values.is_on_call = input.isOnCall;
        break;
      case "notes":
        values.notes = blankToNull(input.notes);
        break;
    }
  }
  return { values, violations };
}

/** Validates and stores a new provider (a technician), with its event, in the caller's transaction. */
export async function insertProvider(tx: Queryable, emit: Emit, store: ServiceProviderStore, org: OrgContext, input: ProviderInput): Promise<ServiceProviderRow> {
  const { values, violations } = providerValues(input, PROVIDER_FIELDS, org.country);
  if (violations.length > 0 || typeof values.name !== "string") throw invalidArgument(violations);
  const inserted = await store.insert(tx, org.orgId, { ...values, name: values.name });
  emit(newEvent(org.orgId, "fieldops.provider.created", ServiceProviderCreatedSchema, create(ServiceProviderCreatedSchema, { provider: toServiceProvider(inserted) })));
  return inserted;
}

/**
 * Applies a partial update of a provider (a technician) in the caller's transaction, with its
 * event when something changed. `message` is the request's field holding the body.
 */
export async function updateProvider(
  tx: Queryable,
  emit: Emit,
  store: ServiceProviderStore,
  org: OrgContext,
  update: {
    id: string;
    fields: ServiceProviderFields | undefined;
    mask: FieldMask | undefined;
    message: string /** The record as a 404 names it ("Technician"). */;
    entity: string;
  },
): Promise<ServiceProviderRow> {
  const fields = updatedFields(ServiceProviderFieldsSchema, update.fields, update.mask, PROVIDER_FIELDS);
  const { values, violations } = providerValues(update.fields ?? { skills: [] }, fields, org.country, `${update.message}.`);
  if (violations.length > 0) throw invalidArgument(violations);
  if (Object.keys(values).length === 0) {
    const existing = await store.get(tx, org.orgId, update.id);
    if (!existing) throw notFound(update.entity);
    return existing;
  }
  const updated = await store.update(tx, org.orgId, update.id, values);
  if (!updated) throw notFound(update.entity);
  emit(newEvent(org.orgId, "fieldops.provider.updated", ServiceProviderUpdatedSchema, create(ServiceProviderUpdatedSchema, { provider: toServiceProvider(updated) })));
  return updated;
}

/**
 * Deletes a provider (a technician): refused (409) while on an active dispatch; the on-call
 * schedules that have not ended are cancelled, each with its event. Resolves the stored id.
 */
export function removeProvider(service: ServiceContext, stores: FieldopsStores, org: OrgContext, id: string, entity: string): Promise<string> {
  return service.write(async (tx, emit) => {
    const row = await stores.technicians.lock(tx, org.orgId, id);
    if (!row) throw notFound(entity);
    if (await stores.technicians.hasActiveDispatch(tx, org.orgId, row.id)) {
      throw new ConnectError(`${row.name} is on an active dispatch: complete or cancel it first`, Code.FailedPrecondition);
    }
    for (const schedule of await stores.schedules.cancelUnended(tx, org.orgId, row.id, service.clock.now())) {
      emit(scheduleEvent(org.orgId, "cancelled", schedule));
    }
    await stores.providers.delete(tx, org.orgId, row.id);
    emit(newEvent(org.orgId, "fieldops.provider.deleted", ServiceProviderDeletedSchema, create(ServiceProviderDeletedSchema, { providerId: row.id })));
    return row.id;
  });
}

export function providerHandlers(service: ServiceContext, stores: FieldopsStores) {
  const { db } = service;
  const store = stores.providers;
  return {
    async listServiceProviders(req: ListServiceProvidersRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const page = req.page ?? 1;
      const pageSize = req.pageSize ?? 10;
      const { rows, total } = await store.list(db, org.orgId, {
        page,
        pageSize,
        status: req.status === undefined ? undefined : providerStatusText(req.status),
        specialty: req.specialty?.trim() || undefined,
        search: req.search?.trim() || undefined,
      });
      return { items: rows.map(toServiceProvider), total, page, pageSize };
    },

    async createServiceProvider(req: CreateServiceProviderRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const row = await service.write((tx, emit) => insertProvider(tx, emit, store, org, req));
      return { provider: toServiceProvider(row) };
    },

    async getServiceProvider(req: GetServiceProviderRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const row = await store.get(db, org.orgId, req.providerId);
      if (!row) throw notFound("Service provider");
      return { provider: toServiceProvider(row) };
    },

    async updateServiceProvider(req: UpdateServiceProviderRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const row = await service.write((tx, emit) =>
        updateProvider(tx, emit, store, org, { id: req.providerId, fields: req.provider, mask: req.updateMask, message: "provider", entity: "Service provider" }),
      );
      return { provider: toServiceProvider(row) };
    },

    async deleteServiceProvider(req: DeleteServiceProviderRequest, ctx: HandlerContext) {
      await removeProvider(service, stores, orgOf(ctx), req.providerId, "Service provider");
      return {};
    },
  } satisfies Partial<ServiceImpl<typeof FieldopsService>>;
}
