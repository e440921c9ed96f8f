import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { normalizePhone } from "@voiceops/platform";
import {
  CommsService,
  ConversationChannel,
  GetCallerMemoryRequestSchema,
  GetCallerMemoryResponseSchema,
} from "@voiceops/proto/voiceops/comms/v1/comms_service_pb";
import {
  BulkAddDncRequestSchema,
  BulkAddDncResponseSchema,
  CheckDncRequestSchema,
  CheckDncResponseSchema,
  DncSource,
  OutboundService,
} from "@voiceops/proto/voiceops/comms/v1/outbound_service_pb";
import { CrmService } from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";
import { AppointmentStatus, FieldopsService } from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";
import { JobsService, ServiceRequestStatus } from "@voiceops/proto/voiceops/jobs/v1/jobs_service_pb";
import { AgentToolArgumentsSchema, LookupCallerResultSchema } from "@voiceops/proto/voiceops/mcp/v1/agent_tools_pb";
import type { ToolContext } from "../context.js";
import { param } from "../schemas.js";
import { defineTool } from "../tool.js";

/** The caller's number in E.164 (the arguments were validated: it parses). */
function e164(ctx: ToolContext, phone: unknown): string {
  return normalizePhone(String(phone), ctx.principal.country) ?? String(phone);
}

const callerPhone = param(GetCallerMemoryRequestSchema, "phone_number", {
  description: "The caller's phone number, any formatting (e.g. the caller ID).",
});

const OPEN_REQUEST = (status: ServiceRequestStatus) =>
  status !== ServiceRequestStatus.COMPLETED && status !== ServiceRequestStatus.CANCELLED;
const ACTIVE_APPOINTMENT = (status: AppointmentStatus) =>
  status === AppointmentStatus.SCHEDULED || status === AppointmentStatus.CONFIRMED;

export const lookupCaller = defineTool({
  name: "lookup_caller",
  title: "Look up the caller",
  description:
    "Call this first on every call, with the caller's number. Answers in one step who the caller is (the contact, or null for a new caller), what the business remembers from earlier calls (memory.summary), their open service requests, their upcoming appointments, and whether the number is on the do-not-call list (do_not_call.blocked: never call it back).",
  kind: "read",
  params: [callerPhone],
  output: LookupCallerResultSchema,
  async run(ctx, args) {
    const phone = e164(ctx, args.of(GetCallerMemoryRequestSchema).phoneNumber);
    // The calls that need only the number run together; those that need the contact after.
    const [{ contact }, memory, doNotCall] = await Promise.all([
      ctx.call(CrmService.method.findContactByPhone, { phoneNumber: phone }),
      ctx.call(CommsService.method.getCallerMemory, { phoneNumber: phone }),
      ctx.call(OutboundService.method.checkDnc, { phone }),
    ]);
    if (!contact) return { phoneNumber: phone, memory, doNotCall, openServiceRequests: [], upcomingAppointments: [] };
    const [requests, appointments] = await Promise.all([
      ctx.call(JobsService.method.listServiceRequests, { contactId: contact.id, page: 1, pageSize: 100 }),
      ctx.call(FieldopsService.method.listAppointments, { contactId: contact.id, page: 1, pageSize: 20 }),
    ]);
    return {
      phoneNumber: phone,
      contact,
      memory,
      doNotCall,
      openServiceRequests: requests.items.filter((r) => OPEN_REQUEST(r.status)),
      upcomingAppointments: appointments.items.filter((a) => ACTIVE_APPOINTMENT(a.status)),
    };
  },
});

export const saveCallerMemory = defineTool({
  name: "save_caller_memory",
  title: "Remember the caller",
  description:
    "Saves what to remember about the caller for their next call (a short summary: who they are, what they wanted, what was agreed). It replaces the previous summary, so include what still matters from it (lookup_caller's memory.summary). Call it before the call ends.",
  kind: "write",
  idempotent: true,
  params: [callerPhone, param(AgentToolArgumentsSchema, "summary")],
  output: GetCallerMemoryResponseSchema,
  async run(ctx, args) {
    const phone = e164(ctx, args.of(GetCallerMemoryRequestSchema).phoneNumber);
    const summary = String(args.of(AgentToolArgumentsSchema).summary);
    const { conversation } = await ctx.call(CommsService.method.upsertConversation, {
      phoneNumber: phone,
      channel: ConversationChannel.PHONE,
      conversationState: { summary },
    });
    const state = conversation?.conversationState ?? {};
    const stamped = typeof state.summary_updated_at === "string" ? new Date(state.summary_updated_at) : undefined;
    return {
      phoneNumber: conversation?.phoneNumber ?? phone,
      summary: typeof state.summary === "string" ? state.summary : summary,
      summaryUpdatedAt: stamped && !Number.isNaN(stamped.getTime()) ? timestampFromDate(stamped) : undefined,
      conversationId: conversation?.id,
    };
  },
});

const dncPhone = param(CheckDncRequestSchema, "phone", {
  as: "phone_number",
  description: "The phone number, any formatting.",
});

export const checkDoNotCall = defineTool({
  name: "check_do_not_call",
  title: "Check the do-not-call list",
  description:
    "Says whether a number may be called: blocked true means it is on the do-not-call list (entry says why and until when). Check before promising or placing a call back.",
  kind: "read",
  params: [dncPhone],
  output: CheckDncResponseSchema,
  run: (ctx, args) =>
    ctx.call(OutboundService.method.checkDnc, { phone: e164(ctx, args.of(CheckDncRequestSchema).phone) }),
});

export const addToDoNotCall = defineTool({
  name: "add_to_do_not_call",
  title: "Add to the do-not-call list",
  description:
    "Puts a number on the do-not-call list when the caller asks not to be called again. added is 1 when the number was added, already_listed 1 when it was on the list already.",
  kind: "write",
  idempotent: true,
  params: [dncPhone, param(BulkAddDncRequestSchema, "reason")],
  output: BulkAddDncResponseSchema,
  run: (ctx, args) =>
    ctx.call(OutboundService.method.bulkAddDnc, {
      phoneNumbers: [e164(ctx, args.of(CheckDncRequestSchema).phone)],
      reason: args.of(BulkAddDncRequestSchema).reason as string | undefined,
      source: DncSource.CALLER_REQUEST,
    }),
});
