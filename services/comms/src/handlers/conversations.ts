import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  enumToJson,
  invalidArgument,
  newEvent,
  normalizePhone,
  orgOf,
  type Emit,
  type OrgContext,
  type ServiceContext,
  notFound,
  withDefaults,
  badFormat,
  enumFilter,
} from "@voiceops/platform";
import {
  ConversationChangedSchema,
  ConversationDeletedSchema,
  ConversationMessageAddedSchema,
} from "@voiceops/proto/voiceops/comms/v1/comms_events_pb";
import {
  ListConversationMessagesRequestSchema,
  ListConversationsRequestSchema,
  ConversationChannelSchema,
  MessageRoleSchema,
  type AddConversationMessageRequest,
  type ClearCallerMemoryRequest,
  type CommsService,
  type DeleteConversationRequest,
  type EndConversationRequest,
  type GetCallerMemoryRequest,
  type GetConversationRequest,
  type ListConversationMessagesRequest,
  type ListConversationsRequest,
  type UpsertConversationRequest,
} from "@voiceops/proto/voiceops/comms/v1/comms_service_pb";
import { toConversation, toConversationMessage, type ConversationRow } from "../store/conversation-rows.js";
import { SUMMARY, SUMMARY_UPDATED_AT, type ConversationStore } from "../store/conversations.js";
import { commsErrors } from "../errors.js";

function changed(orgId: string, verb: "created" | "updated" | "ended", row: ConversationRow) {
  return newEvent(
    orgId,
    `comms.conversation.${verb}`,
    ConversationChangedSchema,
    create(ConversationChangedSchema, { conversation: toConversation(row) }),
  );
}

/** Numbers a caller may be written as: E.164 when the text reads as a phone number, and the text itself (a web visitor id). */
function phoneCandidates(text: string, country: string): string[] {
  const trimmed = text.trim();
  const e164 = normalizePhone(trimmed, country);
  return e164 && e164 !== trimmed ? [e164, trimmed] : [trimmed];
}

/** The caller's number in E.164; the field rules already refused text that is not one. */
function callerPhone(org: OrgContext, text: string): string {
  return normalizePhone(text, org.country) ?? text.trim();
}

export function conversationHandlers(service: ServiceContext, store: ConversationStore) {
  const { db } = service;
  return {
    async listConversations(req: ListConversationsRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const phone = req.phoneNumber?.trim();
      const rows = await store.list(db, org.orgId, {
        phones: phone ? phoneCandidates(phone, org.country) : undefined,
        channel: enumFilter(ConversationChannelSchema, req.channel),
        limit: withDefaults(ListConversationsRequestSchema, req, "limit").limit,
      });
      return { conversations: rows.map(toConversation) };
    },

    async upsertConversation(req: UpsertConversationRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const channel = enumToJson(ConversationChannelSchema, req.channel) ?? "";
      let phone = req.phoneNumber.trim();
      if (channel !== "web") {
        const e164 = normalizePhone(phone, org.country);
        if (!e164) throw invalidArgument([badFormat("phone_number", "phone", req.phoneNumber)]);
        phone = e164;
      }
      const row = await service.write(ctx, async (tx, emit) => {
        const { row, created } = await store.upsert(
          tx,
          org.orgId,
          phone,
          channel,
          req.conversationState ?? {},
          service.clock.now(),
        );
        emit(changed(org.orgId, created ? "created" : "updated", row));
        return row;
      });
      return { conversation: toConversation(row) };
    },

    async getConversation(req: GetConversationRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const row = await store.get(db, org.orgId, req.conversationId.toLowerCase());
      if (!row) throw notFound("Conversation");
      return { conversation: toConversation(row) };
    },

    async deleteConversation(req: DeleteConversationRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const id = req.conversationId.toLowerCase();
      await service.write(ctx, async (tx, emit) => {
        if (!(await store.delete(tx, org.orgId, id))) throw notFound("Conversation");
        emit(
          newEvent(
            org.orgId,
            "comms.conversation.deleted",
            ConversationDeletedSchema,
            create(ConversationDeletedSchema, { conversationId: id }),
          ),
        );
      });
      return {};
    },

    async listConversationMessages(req: ListConversationMessagesRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const id = req.conversationId.toLowerCase();
      // One transaction, so the total and the messages are read from one snapshot.
      return db.transaction(async (tx) => {
        const conversation = await store.get(tx, org.orgId, id);
        if (!conversation) throw notFound("Conversation");
        const rows = await store.latestMessages(
          tx,
          org.orgId,
          id,
          withDefaults(ListConversationMessagesRequestSchema, req, "limit").limit,
        );
        return { items: rows.map(toConversationMessage), total: conversation.message_count };
      });
    },

    async addConversationMessage(req: AddConversationMessageRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const id = req.conversationId.toLowerCase();
      const role = enumToJson(MessageRoleSchema, req.role) ?? "";
      const added = await service.write(ctx, async (tx, emit) => {
        const result = await store.addMessage(
          tx,
          org.orgId,
          id,
          { role, content: req.content, metadata: req.metadata ?? {} },
          service.clock.now(),
        );
        if (result === "missing") throw notFound("Conversation");
        if (result === "ended") throw commsErrors.CONVERSATION_ENDED();
        emit(
          newEvent(
            org.orgId,
            "comms.conversation.message_added",
            ConversationMessageAddedSchema,
            create(ConversationMessageAddedSchema, {
              message: toConversationMessage(result.message),
              messageCount: result.count,
            }),
          ),
        );
        return result.message;
      });
      return { message: toConversationMessage(added) };
    },

    async endConversation(req: EndConversationRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const row = await service.write(ctx, async (tx, emit) => {
        const ended = await store.end(tx, org.orgId, req.conversationId.toLowerCase(), service.clock.now());
        if (!ended) throw notFound("Conversation");
        if (ended.changed) emit(changed(org.orgId, "ended", ended.row));
        return ended.row;
      });
      return { conversation: toConversation(row) };
    },

    async getCallerMemory(req: GetCallerMemoryRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const phone = callerPhone(org, req.phoneNumber);
      const row = await store.memory(db, org.orgId, phone);
      if (!row) return { phoneNumber: phone };
      const summary = row.conversation_state[SUMMARY];
      const stamp = row.conversation_state[SUMMARY_UPDATED_AT];
      const stampDate = typeof stamp === "string" ? new Date(stamp) : undefined;
      return {
        phoneNumber: phone,
        summary: typeof summary === "string" ? summary : JSON.stringify(summary),
        summaryUpdatedAt: stampDate && !Number.isNaN(stampDate.getTime()) ? timestampFromDate(stampDate) : undefined,
        conversationId: row.id,
      };
    },

    async clearCallerMemory(req: ClearCallerMemoryRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const phone = callerPhone(org, req.phoneNumber);
      const cleared = await service.write(ctx, async (tx, emit: Emit) => {
        const rows = await store.clearMemory(tx, org.orgId, phone);
        for (const row of rows) emit(changed(org.orgId, "updated", row));
        return rows.length > 0;
      });
      return { phoneNumber: phone, cleared };
    },
  } satisfies Partial<ServiceImpl<typeof CommsService>>;
}
