import type { JsonValue } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  enumFromJson,
  enumToJson,
  normalizePhone,
  orgOf,
  type ServiceContext,
  withDefaults,
  enumFilter,
  pageAnswer,
  pageRequest,
} from "@voiceops/platform";
import {
  ListMessagesRequestSchema,
  MessageChannelSchema,
  MessageDirectionSchema,
  type CommsService,
  type ListMessagesRequest,
  type MessageChannel,
  type MessageDirection,
} from "@voiceops/proto/voiceops/comms/v1/comms_service_pb";
import type { MessageSlot, MessageStore } from "../store/messages.js";
import { hoursBefore } from "../activities/since.js";

const text = (value: JsonValue | undefined): string | undefined => (typeof value === "string" ? value : undefined);

function toMessage({ row, direction }: MessageSlot, channel: MessageChannel) {
  const m = row.metadata ?? {};
  const web = row.activity_type === "WEB_CHAT";
  const body = web
    ? direction === "inbound"
      ? (text(m.visitor_message) ?? text(m.body) ?? row.description ?? undefined)
      : text(m.reply)
    : (text(m.body) ?? row.description ?? undefined);
  return {
    id: web ? `${row.id}:${direction === "inbound" ? "in" : "out"}` : row.id,
    activityId: row.id,
    direction: (enumFromJson(MessageDirectionSchema, direction) ?? 0) as MessageDirection,
    channel,
    phone: row.customer_phone ?? undefined,
    body,
    contactId: row.contact_id ?? undefined,
    occurredAt: timestampFromDate(row.occurred_at),
  };
}

export function messageHandlers(service: ServiceContext, store: MessageStore) {
  return {
    async listMessages(req: ListMessagesRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const paging = pageRequest(ListMessagesRequestSchema, req);
      const { channel: channelNumber } = withDefaults(ListMessagesRequestSchema, req, "channel");
      const channel = enumToJson(MessageChannelSchema, channelNumber) as "sms" | "web" | "whatsapp";
      const phone = req.phone?.trim();
      let phones: string[] | undefined;
      if (phone) {
        const e164 = channel === "web" ? undefined : normalizePhone(phone, org.country);
        phones = e164 && e164 !== phone ? [e164, phone] : [phone];
      }
      const listing = await store.list(service.db, org.orgId, {
        channel,
        direction: enumFilter(MessageDirectionSchema, req.direction) as "inbound" | "outbound" | undefined,
        phones,
        since: hoursBefore(service.clock.now(), req.hoursBack),
        ...paging,
      });
      const channelValue = (enumFromJson(MessageChannelSchema, channel) ?? 0) as MessageChannel;
      return pageAnswer(paging, listing, (slot) => toMessage(slot, channelValue));
    },
  } satisfies Partial<ServiceImpl<typeof CommsService>>;
}
