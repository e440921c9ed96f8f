import { create, type JsonObject } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { enumFromJson } from "@voiceops/platform";
import {
  ConversationChannelSchema,
  ConversationMessageSchema,
  ConversationSchema,
  MessageRoleSchema,
  type Conversation,
  type ConversationChannel,
  type ConversationMessage,
  type MessageRole,
} from "@voiceops/proto/voiceops/comms/v1/comms_service_pb";

export interface ConversationRow {
  id: string;
  org_id: string;
  phone_number: string;
  channel: string;
  is_active: boolean;
  conversation_state: JsonObject;
  message_count: number;
  last_message_at: Date | null;
  ended_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export const CONVERSATION_COLUMNS = `id, org_id, phone_number, channel, is_active, conversation_state, message_count, last_message_at,
  ended_at, created_at, updated_at`;

export interface MessageRow {
  id: string;
  org_id: string;
  conversation_id: string;
  position: number;
  role: string;
  content: string;
  metadata: JsonObject;
  created_at: Date;
}

export const MESSAGE_COLUMNS = "id, org_id, conversation_id, position, role, content, metadata, created_at";

const ts = (value: Date | null) => (value ? timestampFromDate(value) : undefined);

export function toConversation(row: ConversationRow): Conversation {
  return create(ConversationSchema, {
    id: row.id,
    phoneNumber: row.phone_number,
    channel: (enumFromJson(ConversationChannelSchema, row.channel) ?? 0) as ConversationChannel,
    isActive: row.is_active,
    conversationState: row.conversation_state ?? {},
    messageCount: row.message_count,
    lastMessageAt: ts(row.last_message_at),
    endedAt: ts(row.ended_at),
    createdAt: timestampFromDate(row.created_at),
    updatedAt: timestampFromDate(row.updated_at),
  });
}

export function toConversationMessage(row: MessageRow): ConversationMessage {
  return create(ConversationMessageSchema, {
    id: row.id,
    conversationId: row.conversation_id,
    role: (enumFromJson(MessageRoleSchema, row.role) ?? 0) as MessageRole,
    content: row.content,
    metadata: row.metadata ?? {},
    createdAt: timestampFromDate(row.created_at),
  });
}
