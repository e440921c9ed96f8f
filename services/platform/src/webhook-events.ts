import type { DescMessage } from "@bufbuild/protobuf";
import {
  CallSchema,
  ConversationMessageSchema,
  ConversationSchema,
} from "@voiceops/proto/voiceops/comms/v1/comms_service_pb";
import {
  CallDeletedSchema,
  CallEndedSchema,
  ConversationChangedSchema,
  ConversationDeletedSchema,
  ConversationMessageAddedSchema,
  RecordingStoredSchema,
} from "@voiceops/proto/voiceops/comms/v1/comms_events_pb";
import {
  KnowledgeSourceCreatedSchema,
  KnowledgeSourceDeletedSchema,
  KnowledgeSourceIngestedSchema,
} from "@voiceops/proto/voiceops/comms/v1/knowledge_events_pb";
import { KnowledgeSourceSchema } from "@voiceops/proto/voiceops/comms/v1/knowledge_service_pb";
import {
  CampaignCreatedSchema,
  CampaignStatusChangedSchema,
  DncEntryCreatedSchema,
  DncEntryDeletedSchema,
  OutboundCallFinishedSchema,
  OutboundCallRequestedSchema,
} from "@voiceops/proto/voiceops/comms/v1/outbound_events_pb";
import {
  CallRequestSchema,
  CampaignSchema,
  DncEntrySchema,
} from "@voiceops/proto/voiceops/comms/v1/outbound_service_pb";
import {
  ContactCreatedSchema,
  ContactDeletedSchema,
  ContactUpdatedSchema,
  LeadCreatedSchema,
  LeadDeletedSchema,
  LeadUpdatedSchema,
} from "@voiceops/proto/voiceops/crm/v1/crm_events_pb";
import { ContactSchema, LeadSchema } from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";
import {
  AppointmentBookedSchema,
  AppointmentCancelledSchema,
  AppointmentRescheduledSchema,
  AppointmentUpdatedSchema,
  DispatchCancelledSchema,
  DispatchCreatedSchema,
  DispatchUpdatedSchema,
  ServiceProviderCreatedSchema,
  ServiceProviderDeletedSchema,
  ServiceProviderUpdatedSchema,
  UrgentAlertCreatedSchema,
  UrgentAlertDeletedSchema,
  UrgentAlertUpdatedSchema,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_events_pb";
import {
  AppointmentSchema,
  DispatchSchema,
  ServiceProviderSchema,
  UrgentAlertSchema,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";
import {
  EmergencyRaisedSchema,
  QuotePostedSchema,
  QuoteStatusChangedSchema,
  ServiceRequestCreatedSchema,
  ServiceRequestDeletedSchema,
  ServiceRequestUpdatedSchema,
} from "@voiceops/proto/voiceops/jobs/v1/jobs_events_pb";
import { QuoteOfRequestSchema, ServiceRequestSchema } from "@voiceops/proto/voiceops/jobs/v1/jobs_service_pb";

// The public webhook event types and the internal events they come from. Descriptors only (like
// the registry): the gateway documents the types from it, the webhooks service consumes by it.

/** A public event type: its name, what it means, and the REST resource its `data` is ("id" = `{id}`). */
interface WebhookEventType {
  readonly type: string;
  readonly description: string;
  readonly data: DescMessage | "id";
}

/** An internal event (a bus subject) and how it becomes a public event. */
export interface WebhookEventSource {
  readonly subject: string;
  readonly schema: DescMessage;
  readonly type: string;
  /** The payload's field holding the resource, or the field holding the id of a deleted one. */
  readonly field: string;
}

const RESOURCES: readonly [resource: string, noun: string, data: DescMessage][] = [
  ["contact", "A contact", ContactSchema],
  ["lead", "A lead", LeadSchema],
  ["service_request", "A service request", ServiceRequestSchema],
  ["technician", "A technician (service provider)", ServiceProviderSchema],
  ["dispatch", "A dispatch", DispatchSchema],
  ["urgent_alert", "An urgent alert", UrgentAlertSchema],
  ["appointment", "An appointment", AppointmentSchema],
  ["conversation", "A conversation", ConversationSchema],
  ["message", "A conversation message", ConversationMessageSchema],
  ["call", "A call", CallSchema],
  ["campaign", "A campaign", CampaignSchema],
  ["call_request", "An outbound call request", CallRequestSchema],
  ["dnc_entry", "A do-not-call entry", DncEntrySchema],
  ["knowledge_source", "A knowledge-base source", KnowledgeSourceSchema],
];

/** The test event POST /api/webhooks/{id}/test sends. */
export const WEBHOOK_TEST_TYPE = "webhook.test";

/** Every public event type, in the catalogue's order. */
export const WEBHOOK_EVENT_TYPES: readonly WebhookEventType[] = [
  ...RESOURCES.flatMap(([resource, noun, data]) => [
    { type: `${resource}.created`, description: `${noun} was created.`, data },
    { type: `${resource}.updated`, description: `${noun} was changed.`, data },
    { type: `${resource}.deleted`, description: `${noun} was deleted; data is {id}.`, data: "id" as const },
  ]),
  { type: "appointment.booked", description: "An appointment was booked.", data: AppointmentSchema },
  {
    type: "appointment.rescheduled",
    description: "An appointment was moved to another time.",
    data: AppointmentSchema,
  },
  { type: "appointment.cancelled", description: "An appointment was cancelled.", data: AppointmentSchema },
  { type: "call.ended", description: "A call ended.", data: CallSchema },
  { type: "call.recording_ready", description: "A call's recording was stored.", data: CallSchema },
  {
    type: "knowledge_source.ready",
    description: "A knowledge-base source was ingested and is searchable.",
    data: KnowledgeSourceSchema,
  },
  {
    type: "knowledge_source.failed",
    description: "A knowledge-base source could not be ingested.",
    data: KnowledgeSourceSchema,
  },
  {
    type: "quote.updated",
    description: "A service request's quote was posted or its status changed.",
    data: QuoteOfRequestSchema,
  },
  {
    type: "emergency.flagged",
    description: "A service request was flagged as an emergency.",
    data: ServiceRequestSchema,
  },
  {
    type: WEBHOOK_TEST_TYPE,
    description: "A test event sent on request to one endpoint; data is {id} (the endpoint's id).",
    data: "id",
  },
];

const KNOWN_TYPES = new Set(WEBHOOK_EVENT_TYPES.map((entry) => entry.type));

/** Whether a name is a public event type (or "*", every type). */
export function isWebhookEventType(type: string): boolean {
  return type === "*" || KNOWN_TYPES.has(type);
}

/** The internal events delivered as webhooks. */
export const WEBHOOK_EVENT_SOURCES: readonly WebhookEventSource[] = [
  { subject: "crm.contact.created", schema: ContactCreatedSchema, type: "contact.created", field: "contact" },
  { subject: "crm.contact.updated", schema: ContactUpdatedSchema, type: "contact.updated", field: "contact" },
  { subject: "crm.contact.deleted", schema: ContactDeletedSchema, type: "contact.deleted", field: "contact_id" },
  { subject: "crm.lead.created", schema: LeadCreatedSchema, type: "lead.created", field: "lead" },
  { subject: "crm.lead.updated", schema: LeadUpdatedSchema, type: "lead.updated", field: "lead" },
  { subject: "crm.lead.deleted", schema: LeadDeletedSchema, type: "lead.deleted", field: "lead_id" },
  {
    subject: "jobs.service_request.created",
    schema: ServiceRequestCreatedSchema,
    type: "service_request.created",
    field: "service_request",
  },
  {
    subject: "jobs.service_request.updated",
    schema: ServiceRequestUpdatedSchema,
    type: "service_request.updated",
    field: "service_request",
  },
  {
    subject: "jobs.service_request.deleted",
    schema: ServiceRequestDeletedSchema,
    type: "service_request.deleted",
    field: "service_request_id",
  },
  { subject: "jobs.quote.posted", schema: QuotePostedSchema, type: "quote.updated", field: "quote" },
  { subject: "jobs.quote.status_changed", schema: QuoteStatusChangedSchema, type: "quote.updated", field: "quote" },
  {
    subject: "jobs.emergency.raised",
    schema: EmergencyRaisedSchema,
    type: "emergency.flagged",
    field: "service_request",
  },
  {
    subject: "fieldops.provider.created",
    schema: ServiceProviderCreatedSchema,
    type: "technician.created",
    field: "provider",
  },
  {
    subject: "fieldops.provider.updated",
    schema: ServiceProviderUpdatedSchema,
    type: "technician.updated",
    field: "provider",
  },
  {
    subject: "fieldops.provider.deleted",
    schema: ServiceProviderDeletedSchema,
    type: "technician.deleted",
    field: "provider_id",
  },
  { subject: "fieldops.dispatch.created", schema: DispatchCreatedSchema, type: "dispatch.created", field: "dispatch" },
  { subject: "fieldops.dispatch.updated", schema: DispatchUpdatedSchema, type: "dispatch.updated", field: "dispatch" },
  {
    subject: "fieldops.dispatch.cancelled",
    schema: DispatchCancelledSchema,
    type: "dispatch.updated",
    field: "dispatch",
  },
  {
    subject: "fieldops.urgent_alert.created",
    schema: UrgentAlertCreatedSchema,
    type: "urgent_alert.created",
    field: "alert",
  },
  {
    subject: "fieldops.urgent_alert.updated",
    schema: UrgentAlertUpdatedSchema,
    type: "urgent_alert.updated",
    field: "alert",
  },
  {
    subject: "fieldops.urgent_alert.deleted",
    schema: UrgentAlertDeletedSchema,
    type: "urgent_alert.deleted",
    field: "alert_id",
  },
  {
    subject: "fieldops.appointment.booked",
    schema: AppointmentBookedSchema,
    type: "appointment.booked",
    field: "appointment",
  },
  {
    subject: "fieldops.appointment.rescheduled",
    schema: AppointmentRescheduledSchema,
    type: "appointment.rescheduled",
    field: "appointment",
  },
  {
    subject: "fieldops.appointment.cancelled",
    schema: AppointmentCancelledSchema,
    type: "appointment.cancelled",
    field: "appointment",
  },
  {
    subject: "fieldops.appointment.updated",
    schema: AppointmentUpdatedSchema,
    type: "appointment.updated",
    field: "appointment",
  },
  {
    subject: "comms.conversation.created",
    schema: ConversationChangedSchema,
    type: "conversation.created",
    field: "conversation",
  },
  {
    subject: "comms.conversation.updated",
    schema: ConversationChangedSchema,
    type: "conversation.updated",
    field: "conversation",
  },
  {
    subject: "comms.conversation.ended",
    schema: ConversationChangedSchema,
    type: "conversation.updated",
    field: "conversation",
  },
  {
    subject: "comms.conversation.deleted",
    schema: ConversationDeletedSchema,
    type: "conversation.deleted",
    field: "conversation_id",
  },
  {
    subject: "comms.conversation.message_added",
    schema: ConversationMessageAddedSchema,
    type: "message.created",
    field: "message",
  },
  { subject: "comms.call.ended", schema: CallEndedSchema, type: "call.ended", field: "call" },
  { subject: "comms.call.deleted", schema: CallDeletedSchema, type: "call.deleted", field: "session_id" },
  {
    subject: "comms.call.recording_stored",
    schema: RecordingStoredSchema,
    type: "call.recording_ready",
    field: "call",
  },
  {
    subject: "comms.dnc_entry.created",
    schema: DncEntryCreatedSchema,
    type: "dnc_entry.created",
    field: "entry",
  },
  {
    subject: "comms.dnc_entry.deleted",
    schema: DncEntryDeletedSchema,
    type: "dnc_entry.deleted",
    field: "entry_id",
  },
  {
    subject: "comms.campaign.created",
    schema: CampaignCreatedSchema,
    type: "campaign.created",
    field: "campaign",
  },
  {
    subject: "comms.campaign.status_changed",
    schema: CampaignStatusChangedSchema,
    type: "campaign.updated",
    field: "campaign",
  },
  {
    subject: "comms.outbound_call.requested",
    schema: OutboundCallRequestedSchema,
    type: "call_request.created",
    field: "call_request",
  },
  {
    subject: "comms.outbound_call.finished",
    schema: OutboundCallFinishedSchema,
    type: "call_request.updated",
    field: "call_request",
  },
  {
    subject: "comms.knowledge_source.created",
    schema: KnowledgeSourceCreatedSchema,
    type: "knowledge_source.created",
    field: "source",
  },
  {
    subject: "comms.knowledge_source.ready",
    schema: KnowledgeSourceIngestedSchema,
    type: "knowledge_source.ready",
    field: "source",
  },
  {
    subject: "comms.knowledge_source.failed",
    schema: KnowledgeSourceIngestedSchema,
    type: "knowledge_source.failed",
    field: "source",
  },
  {
    subject: "comms.knowledge_source.deleted",
    schema: KnowledgeSourceDeletedSchema,
    type: "knowledge_source.deleted",
    field: "source_id",
  },
];
