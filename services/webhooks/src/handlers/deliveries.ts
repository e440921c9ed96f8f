import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  activeTraceparent,
  newId,
  notFound,
  orgOf,
  type ServiceContext,
  WEBHOOK_TEST_TYPE,
  pageAnswer,
  pageRequest,
} from "@voiceops/platform";
import {
  ListWebhookDeliveriesRequestSchema,
  type GetWebhookDeliveryRequest,
  type ListWebhookDeliveriesRequest,
  type RecoverWebhookDeliveriesRequest,
  type ResendWebhookDeliveryRequest,
  type SendWebhookTestRequest,
  type WebhooksService,
} from "@voiceops/proto/voiceops/webhooks/v1/webhooks_service_pb";
import { eventBody } from "../consumers.js";
import type { WebhookStores } from "../store/index.js";
import { deliveryStatusText, toDelivery, toDeliveryDetail } from "../store/rows.js";

export function deliveryHandlers(service: ServiceContext, stores: WebhookStores, nudge: () => void) {
  const { db } = service;
  const { endpoints, deliveries } = stores;

  async function requireEndpoint(orgId: string, endpointId: string): Promise<void> {
    if (!(await endpoints.get(db, orgId, endpointId))) throw notFound("Webhook endpoint");
  }

  return {
    async listWebhookDeliveries(req: ListWebhookDeliveriesRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const paging = pageRequest(ListWebhookDeliveriesRequestSchema, req);
      await requireEndpoint(org.orgId, req.endpointId);
      const listing = await deliveries.list(db, org.orgId, req.endpointId, {
        ...paging,
        status: req.status === undefined ? undefined : deliveryStatusText(req.status),
        eventType: req.eventType?.trim() || undefined,
      });
      return pageAnswer(paging, listing, toDelivery);
    },

    async getWebhookDelivery(req: GetWebhookDeliveryRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const found = await deliveries.get(db, org.orgId, req.endpointId, req.deliveryId);
      if (!found) throw notFound("Webhook delivery");
      return { delivery: toDeliveryDetail(found.row, found.attempts) };
    },

    async resendWebhookDelivery(req: ResendWebhookDeliveryRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      await service.write(ctx, async (tx) => {
        if (!(await deliveries.resend(tx, org.orgId, req.endpointId, req.deliveryId, service.clock.now())))
          throw notFound("Webhook delivery");
      });
      nudge();
      return { deliveryId: req.deliveryId };
    },

    async recoverWebhookDeliveries(req: RecoverWebhookDeliveriesRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const since = req.since ? timestampDate(req.since) : new Date(0);
      const queued = await service.write(ctx, async (tx) => {
        if (!(await endpoints.get(tx, org.orgId, req.endpointId))) throw notFound("Webhook endpoint");
        return deliveries.recover(tx, org.orgId, req.endpointId, since, service.clock.now());
      });
      if (queued > 0) nudge();
      return { queued };
    },

    async sendWebhookTest(req: SendWebhookTestRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const now = service.clock.now();
      const eventId = newId();
      await service.write(ctx, async (tx) => {
        if (!(await endpoints.get(tx, org.orgId, req.endpointId))) throw notFound("Webhook endpoint");
        const body = eventBody(WEBHOOK_TEST_TYPE, now, { id: req.endpointId });
        await deliveries.record(
          tx,
          [{ id: eventId, orgId: org.orgId, type: WEBHOOK_TEST_TYPE, body, at: now, traceparent: activeTraceparent() }],
          now,
          req.endpointId,
        );
      });
      nudge();
      const deliveryId = await deliveries.idOf(db, req.endpointId, eventId);
      return { deliveryId, eventId };
    },
  } satisfies Partial<ServiceImpl<typeof WebhooksService>>;
}
