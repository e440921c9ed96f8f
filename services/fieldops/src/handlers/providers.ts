import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { orgOf, notFound, type ServiceContext, pageAnswer, pageRequest } from "@voiceops/platform";
import {
  type FieldopsService,
  CreateServiceProviderRequestSchema,
  ListServiceProvidersRequestSchema,
  type CreateServiceProviderRequest,
  type DeleteServiceProviderRequest,
  type GetServiceProviderRequest,
  type ListServiceProvidersRequest,
  type UpdateServiceProviderRequest,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";
import { providerStatusText, toServiceProvider } from "../store/rows.js";
import type { FieldopsStores } from "../store/index.js";
import { insertProvider, updateProvider, removeProvider } from "../providers/writes.js";

export function providerHandlers(service: ServiceContext, stores: FieldopsStores) {
  const { db } = service;
  const store = stores.providers;
  return {
    async listServiceProviders(req: ListServiceProvidersRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const paging = pageRequest(ListServiceProvidersRequestSchema, req);
      const listing = await store.list(db, org.orgId, {
        ...paging,
        status: req.status === undefined ? undefined : providerStatusText(req.status),
        specialty: req.specialty?.trim() || undefined,
        search: req.search?.trim() || undefined,
      });
      return pageAnswer(paging, listing, toServiceProvider);
    },

    async createServiceProvider(req: CreateServiceProviderRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const row = await service.write(ctx, (tx, emit) =>
        insertProvider(tx, emit, store, org, CreateServiceProviderRequestSchema, req),
      );
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
      const row = await service.write(ctx, (tx, emit) =>
        updateProvider(tx, emit, store, org, {
          id: req.providerId,
          fields: req.provider,
          mask: req.updateMask,
          message: "provider",
          entity: "Service provider",
        }),
      );
      return { provider: toServiceProvider(row) };
    },

    async deleteServiceProvider(req: DeleteServiceProviderRequest, ctx: HandlerContext) {
      await removeProvider(ctx, service, stores, orgOf(ctx), req.providerId, "Service provider");
      return {};
    },
  } satisfies Partial<ServiceImpl<typeof FieldopsService>>;
}
