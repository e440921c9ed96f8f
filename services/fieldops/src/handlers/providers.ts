import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import {
  blankToNull,
  distinctLabels,
  invalidArgument,
  newEvent,
  orgOf,
  phoneInput,
  type ServiceContext,
  updatedFields,
  violation,
  type Violation,
} from "@voiceops/platform";
import {
  ServiceProviderCreatedSchema,
  ServiceProviderDeletedSchema,
  ServiceProviderUpdatedSchema,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_events_pb";
import {
  ServiceProviderFieldsSchema,
  type CreateServiceProviderRequest,
  type DeleteServiceProviderRequest,
  type GetServiceProviderRequest,
  type ListServiceProvidersRequest,
  type ServiceProviderStatus,
  type UpdateServiceProviderRequest,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";
import { PROVIDER_FIELDS, type ProviderField, type ProviderValues, type ServiceProviderStore } from "../store/providers.js";
import { providerStatusText, toServiceProvider } from "../store/rows.js";

/** The writable provider fields, as both the create request and ServiceProviderFields carry them. */
interface ProviderInput {
  name?: string;
  phoneNumber?: string;
  email?: string;
  specialty?: string;
  skills: string[];
  status?: ServiceProviderStatus;
  isOnCall?: boolean;
  notes?: string;
}

export function providerNotFound(): ConnectError {
  return new ConnectError("Service provider not found", Code.NotFound);
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
        if (name === null) violations.push(violation(`${prefix}name`, "string_type", "Input should be a valid string", null));
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

export function providerHandlers(service: ServiceContext, store: ServiceProviderStore) {
  const { db } = service;
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
      const { values, violations } = providerValues(req, PROVIDER_FIELDS, org.country);
      if (violations.length > 0 || typeof values.name !== "string") throw invalidArgument(violations);
      const name = values.name;
      const row = await service.write(async (tx, emit) => {
        const inserted = await store.insert(tx, org.orgId, { ...values, name });
        emit(newEvent(org.orgId, "fieldops.provider.created", ServiceProviderCreatedSchema, create(ServiceProviderCreatedSchema, { provider: toServiceProvider(inserted) })));
        return inserted;
      });
      return { provider: toServiceProvider(row) };
    },

    async getServiceProvider(req: GetServiceProviderRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const row = await store.get(db, org.orgId, req.providerId);
      if (!row) throw providerNotFound();
      return { provider: toServiceProvider(row) };
    },

    async updateServiceProvider(req: UpdateServiceProviderRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const fields = updatedFields(ServiceProviderFieldsSchema, req.provider, req.updateMask, PROVIDER_FIELDS);
      const { values, violations } = providerValues(req.provider ?? { skills: [] }, fields, org.country, "provider.");
      if (violations.length > 0) throw invalidArgument(violations);
      const row = await service.write(async (tx, emit) => {
        if (Object.keys(values).length === 0) {
          const existing = await store.get(tx, org.orgId, req.providerId);
          if (!existing) throw providerNotFound();
          return existing;
        }
        const updated = await store.update(tx, org.orgId, req.providerId, values);
        if (!updated) throw providerNotFound();
        emit(newEvent(org.orgId, "fieldops.provider.updated", ServiceProviderUpdatedSchema, create(ServiceProviderUpdatedSchema, { provider: toServiceProvider(updated) })));
        return updated;
      });
      return { provider: toServiceProvider(row) };
    },

    async deleteServiceProvider(req: DeleteServiceProviderRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      await service.write(async (tx, emit) => {
        // The stored id, not the path's spelling (which may be upper case).
        const providerId = await store.delete(tx, org.orgId, req.providerId);
        if (!providerId) throw providerNotFound();
        emit(newEvent(org.orgId, "fieldops.provider.deleted", ServiceProviderDeletedSchema, create(ServiceProviderDeletedSchema, { providerId })));
      });
      return {};
    },
  };
}
