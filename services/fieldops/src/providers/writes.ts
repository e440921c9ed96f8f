import { create, type DescMessage } from "@bufbuild/protobuf";
import type { FieldMask } from "@bufbuild/protobuf/wkt";
import type { HandlerContext } from "@connectrpc/connect";
import {
  columnValues,
  invalidArgument,
  newEvent,
  requiredText,
  updatedFields,
  notFound,
  type Emit,
  type OrgContext,
  type Queryable,
  type ServiceContext,
} from "@voiceops/platform";
import {
  ServiceProviderCreatedSchema,
  ServiceProviderDeletedSchema,
  ServiceProviderUpdatedSchema,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_events_pb";
import {
  ServiceProviderFieldsSchema,
  type CreateServiceProviderRequest,
  type CreateTechnicianRequest,
  type ServiceProviderFields,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";
import { PROVIDER_FIELDS, type ProviderValues, type ServiceProviderStore } from "../store/providers.js";
import { toServiceProvider, type ServiceProviderRow } from "../store/rows.js";
import type { FieldopsStores } from "../store/index.js";
import { scheduleEvent } from "../scheduling/schedule-events.js";
import { fieldopsErrors } from "../errors.js";

/**
 * Validates and stores a new provider (a technician), with its event, in the caller's transaction.
 * Phone numbers are normalized to E.164 with the organization's country (a text that is no phone
 * number is a violation); skills are trimmed, blanks dropped and duplicates removed.
 */
export async function insertProvider(
  tx: Queryable,
  emit: Emit,
  store: ServiceProviderStore,
  org: OrgContext,
  schema: DescMessage,
  input: CreateServiceProviderRequest | CreateTechnicianRequest,
): Promise<ServiceProviderRow> {
  const { values, violations } = columnValues<ProviderValues>(schema, input, PROVIDER_FIELDS, {
    country: org.country,
    overrides: { name: requiredText },
  });
  if (violations.length > 0 || typeof values.name !== "string") throw invalidArgument(violations);
  const inserted = await store.insert(tx, org.orgId, { ...values, name: values.name });
  emit(
    newEvent(
      org.orgId,
      "fieldops.provider.created",
      ServiceProviderCreatedSchema,
      create(ServiceProviderCreatedSchema, { provider: toServiceProvider(inserted) }),
    ),
  );
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
  const { values, violations } = columnValues<ProviderValues>(
    ServiceProviderFieldsSchema,
    update.fields ?? create(ServiceProviderFieldsSchema),
    fields,
    {
      prefix: `${update.message}.`,
      country: org.country,
      overrides: { name: requiredText },
    },
  );
  if (violations.length > 0) throw invalidArgument(violations);
  if (Object.keys(values).length === 0) {
    const existing = await store.get(tx, org.orgId, update.id);
    if (!existing) throw notFound(update.entity);
    return existing;
  }
  const updated = await store.update(tx, org.orgId, update.id, values);
  if (!updated) throw notFound(update.entity);
  emit(
    newEvent(
      org.orgId,
      "fieldops.provider.updated",
      ServiceProviderUpdatedSchema,
      create(ServiceProviderUpdatedSchema, { provider: toServiceProvider(updated) }),
    ),
  );
  return updated;
}

/**
 * Deletes a provider (a technician): refused (409) while on an active dispatch; the on-call
 * schedules that have not ended are cancelled, each with its event. Resolves the stored id.
 */
export function removeProvider(
  ctx: HandlerContext,
  service: ServiceContext,
  stores: FieldopsStores,
  org: OrgContext,
  id: string,
  entity: string,
): Promise<string> {
  return service.write(ctx, async (tx, emit) => {
    const row = await stores.technicians.lock(tx, org.orgId, id);
    if (!row) throw notFound(entity);
    if (await stores.technicians.hasActiveDispatch(tx, org.orgId, row.id)) {
      throw fieldopsErrors.TECHNICIAN_ON_ACTIVE_DISPATCH(row.name);
    }
    for (const schedule of await stores.schedules.cancelUnended(tx, org.orgId, row.id, service.clock.now())) {
      emit(scheduleEvent(org.orgId, "cancelled", schedule));
    }
    await stores.providers.delete(tx, org.orgId, row.id);
    emit(
      newEvent(
        org.orgId,
        "fieldops.provider.deleted",
        ServiceProviderDeletedSchema,
        create(ServiceProviderDeletedSchema, { providerId: row.id }),
      ),
    );
    return row.id;
  });
}
