import { create } from "@bufbuild/protobuf";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  invalidArgument,
  invalidValue,
  isWebhookEventType,
  notAllowed,
  notFound,
  orgOf,
  type ServiceContext,
  type Violation,
  WEBHOOK_EVENT_TYPES,
  pageAnswer,
  pageRequest,
} from "@voiceops/platform";
import {
  CreatedWebhookEndpointSchema,
  ListWebhookEndpointsRequestSchema,
  WebhookEndpointFieldsSchema,
  type CreateWebhookEndpointRequest,
  type DeleteWebhookEndpointRequest,
  type GetWebhookEndpointRequest,
  type ListWebhookEndpointsRequest,
  type RotateWebhookSecretRequest,
  type UpdateWebhookEndpointRequest,
  type WebhooksService,
} from "@voiceops/proto/voiceops/webhooks/v1/webhooks_service_pb";
import { updatedFields } from "@voiceops/platform";
import { urlProblem } from "../delivery/address-check.js";
import { newWebhookSecret } from "../delivery/signing.js";
import type { EndpointChanges } from "../store/endpoints.js";
import type { WebhookStores } from "../store/index.js";
import { toEndpoint } from "../store/rows.js";

const UPDATABLE = ["url", "event_types", "description", "enabled"] as const;

/** Distinct event types, each a known type or "*"; violations name the bad ones. */
function checkEventTypes(types: readonly string[], path: string, violations: Violation[]): string[] {
  const distinct = [...new Set(types.map((type) => type.trim()))];
  distinct.forEach((type, index) => {
    if (!isWebhookEventType(type))
      violations.push(notAllowed(`${path}.${index}`, type, ["*", ...WEBHOOK_EVENT_TYPES.map((entry) => entry.type)]));
  });
  return distinct;
}

function checkUrl(url: string, path: string, allowPrivate: boolean, violations: Violation[]): string {
  const trimmed = url.trim();
  const problem = urlProblem(trimmed, allowPrivate);
  if (problem) violations.push(invalidValue(path, `url ${problem}`, url));
  return trimmed;
}

export function endpointHandlers(service: ServiceContext, stores: WebhookStores, allowPrivate: boolean) {
  const { db } = service;
  const { endpoints } = stores;

  return {
    async listWebhookEventTypes() {
      return { items: WEBHOOK_EVENT_TYPES.map(({ type, description }) => ({ type, description })) };
    },

    async listWebhookEndpoints(req: ListWebhookEndpointsRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const paging = pageRequest(ListWebhookEndpointsRequestSchema, req);
      const listing = await endpoints.list(db, org.orgId, {
        ...paging,
        enabled: req.enabled,
        eventType: req.eventType?.trim() || undefined,
      });
      return pageAnswer(paging, listing, toEndpoint);
    },

    async createWebhookEndpoint(req: CreateWebhookEndpointRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const violations: Violation[] = [];
      const url = checkUrl(req.url, "url", allowPrivate, violations);
      const eventTypes =
        req.eventTypes.length === 0 ? ["*"] : checkEventTypes(req.eventTypes, "event_types", violations);
      if (violations.length > 0) throw invalidArgument(violations);
      const secret = newWebhookSecret();
      const row = await service.write(ctx, (tx) =>
        endpoints.insert(
          tx,
          org.orgId,
          { url, description: req.description?.trim() || null, event_types: eventTypes, secret },
          service.clock.now(),
        ),
      );
      return { endpoint: create(CreatedWebhookEndpointSchema, { ...toEndpoint(row), $typeName: undefined, secret }) };
    },

    async getWebhookEndpoint(req: GetWebhookEndpointRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const row = await endpoints.get(db, org.orgId, req.endpointId);
      if (!row) throw notFound("Webhook endpoint");
      return { endpoint: toEndpoint(row) };
    },

    async updateWebhookEndpoint(req: UpdateWebhookEndpointRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const fields = updatedFields(WebhookEndpointFieldsSchema, req.endpoint, req.updateMask, UPDATABLE);
      const input = req.endpoint ?? create(WebhookEndpointFieldsSchema);
      const violations: Violation[] = [];
      const changes: EndpointChanges = {};
      if (fields.includes("url") && input.url !== undefined)
        changes.url = checkUrl(input.url, "url", allowPrivate, violations);
      if (fields.includes("event_types"))
        changes.event_types =
          input.eventTypes.length === 0 ? ["*"] : checkEventTypes(input.eventTypes, "event_types", violations);
      if (fields.includes("description")) changes.description = input.description?.trim() || null;
      if (fields.includes("enabled") && input.enabled !== undefined) changes.enabled = input.enabled;
      if (violations.length > 0) throw invalidArgument(violations);
      const row = await service.write(ctx, async (tx) => {
        const updated = await endpoints.update(tx, org.orgId, req.endpointId, changes, service.clock.now());
        if (!updated) throw notFound("Webhook endpoint");
        return updated;
      });
      return { endpoint: toEndpoint(row) };
    },

    async deleteWebhookEndpoint(req: DeleteWebhookEndpointRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      await service.write(ctx, async (tx) => {
        if (!(await endpoints.delete(tx, org.orgId, req.endpointId))) throw notFound("Webhook endpoint");
      });
      return {};
    },

    async rotateWebhookSecret(req: RotateWebhookSecretRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const secret = newWebhookSecret();
      await service.write(ctx, async (tx) => {
        if (!(await endpoints.rotateSecret(tx, org.orgId, req.endpointId, secret, service.clock.now())))
          throw notFound("Webhook endpoint");
      });
      return { secret };
    },
  } satisfies Partial<ServiceImpl<typeof WebhooksService>>;
}
