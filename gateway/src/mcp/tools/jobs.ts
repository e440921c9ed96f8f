import type { MessageInitShape } from "@bufbuild/protobuf";
import { invalidValue } from "@voiceops/platform";
import { CrmService, UpsertContactRequestSchema } from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";
import {
  CreateDispatchRequestSchema,
  DispatchSchema,
  FieldopsService,
  type OnCallTechnician,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";
import {
  CreateServiceRequestRequestSchema,
  EmergencyType,
  GetServiceRequestRequestSchema,
  JobsService,
  MarkEmergencyRequestSchema,
  ServiceRequestSchema,
} from "@voiceops/proto/voiceops/jobs/v1/jobs_service_pb";
import { AgentToolArgumentsSchema, OnCallTechnicianResultSchema } from "@voiceops/proto/voiceops/mcp/v1/agent_tools_pb";
import { present } from "../errors.js";
import { param } from "../schemas.js";
import { defineTool } from "../tool.js";

const REQUEST_FIELDS = ["contact_id", "description", "priority", "category", "address", "due_at"] as const;

export const createServiceRequest = defineTool({
  name: "create_service_request",
  title: "Create a service request",
  description:
    "Opens a job: work the caller needs done (a repair, an installation, a visit). Give contact_id, or the caller's phone_number (and name) to find or create the contact; describe the problem in the caller's words. priority: LOW, MEDIUM (default), HIGH or URGENT. For danger (gas, flooding, sparks) also call flag_emergency.",
  kind: "write",
  params: [
    ...REQUEST_FIELDS.map((name) => param(CreateServiceRequestRequestSchema, name)),
    param(UpsertContactRequestSchema, "phone_number", {
      description: "The caller's phone number: the contact is found by it, or created (when contact_id is not given).",
    }),
    param(UpsertContactRequestSchema, "name", {
      description: "The caller's name, for a contact created from phone_number.",
    }),
  ],
  output: ServiceRequestSchema,
  async run(ctx, args) {
    const request = args.of(CreateServiceRequestRequestSchema) as MessageInitShape<
      typeof CreateServiceRequestRequestSchema
    >;
    if (!args.has("contact_id")) {
      if (!args.has("phone_number"))
        throw ctx.invalid(invalidValue("", "phone_number or contact_id is required", null));
      const who = args.of(UpsertContactRequestSchema);
      const { contact } = await ctx.call(CrmService.method.upsertContact, {
        phoneNumber: who.phoneNumber as string,
        name: who.name as string | undefined,
      });
      request.contactId = present(contact).id;
    }
    return present((await ctx.call(JobsService.method.createServiceRequest, request)).serviceRequest);
  },
});

export const getServiceRequest = defineTool({
  name: "get_service_request",
  title: "Get a service request",
  description:
    "Reads one service request by id: its status, priority, emergency flags, quote and due date. lookup_caller lists the caller's open ones already.",
  kind: "read",
  params: [param(GetServiceRequestRequestSchema, "service_request_id", { as: "id" })],
  output: ServiceRequestSchema,
  run: async (ctx, args) =>
    present(
      (
        await ctx.call(JobsService.method.getServiceRequest, {
          serviceRequestId: args.of(GetServiceRequestRequestSchema).serviceRequestId as string,
        })
      ).serviceRequest,
    ),
});

export const flagEmergency = defineTool({
  name: "flag_emergency",
  title: "Flag an emergency",
  description:
    "Marks a service request as an emergency for immediate dispatch (gas smell, flooding, no heat in winter, sparking wires). emergency_type defaults to other; emergency_priority 1 is the most urgent (default). Then find who to send with get_on_call_technician and dispatch_technician.",
  kind: "write",
  idempotent: true,
  params: [
    param(MarkEmergencyRequestSchema, "service_request_id"),
    param(MarkEmergencyRequestSchema, "emergency_type", { required: false }),
    param(MarkEmergencyRequestSchema, "emergency_priority"),
    param(MarkEmergencyRequestSchema, "notes"),
  ],
  output: ServiceRequestSchema,
  async run(ctx, args) {
    const request = args.of(MarkEmergencyRequestSchema) as MessageInitShape<typeof MarkEmergencyRequestSchema>;
    request.emergencyType ??= EmergencyType.OTHER;
    return present((await ctx.call(JobsService.method.markEmergency, request)).serviceRequest);
  },
});

/** Whether a technician has the skill, ignoring case. */
function hasSkill(technician: OnCallTechnician, skill: string): boolean {
  const wanted = skill.trim().toLowerCase();
  return (
    technician.skills.some((s) => s.trim().toLowerCase() === wanted) ||
    technician.specialty?.trim().toLowerCase() === wanted
  );
}

export const getOnCallTechnician = defineTool({
  name: "get_on_call_technician",
  title: "Who is on call",
  description:
    "Finds the technician on call right now, optionally with a skill (e.g. plumbing, electrical, hvac). technician is the best fit (available now first), null when nobody on call fits; on_call lists everyone on call who fits. Use it for emergencies and after-hours requests.",
  kind: "read",
  params: [param(AgentToolArgumentsSchema, "skill")],
  output: OnCallTechnicianResultSchema,
  async run(ctx, args) {
    const skill = args.of(AgentToolArgumentsSchema).skill as string | undefined;
    const { items } = await ctx.call(FieldopsService.method.listCurrentOnCall, {});
    const fitting = skill?.trim() ? items.filter((t) => hasSkill(t, skill)) : items;
    return { technician: fitting.find((t) => t.availableNow) ?? fitting[0], onCall: fitting };
  },
});

export const dispatchTechnician = defineTool({
  name: "dispatch_technician",
  title: "Dispatch a technician",
  description:
    "Sends a technician to a service request now (an emergency dispatch). Without technician_id the best available one is chosen (matching skills, fewest dispatches today). A request has at most one active dispatch; none available is a conflict.",
  kind: "write",
  params: ["service_request_id", "technician_id", "eta_at", "notes"].map((name) =>
    param(CreateDispatchRequestSchema, name),
  ),
  output: DispatchSchema,
  run: async (ctx, args) =>
    present(
      (
        await ctx.call(
          FieldopsService.method.createDispatch,
          args.of(CreateDispatchRequestSchema) as MessageInitShape<typeof CreateDispatchRequestSchema>,
        )
      ).dispatch,
    ),
});
