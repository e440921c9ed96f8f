import type { JsonObject } from "@bufbuild/protobuf";
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import {
  blankToNull,
  invalidArgument,
  normalizePhone,
  orgOf,
  notFound,
  referenceNotFound,
  invalidValue,
  nulCharacter,
  type OrgContext,
  type ServiceContext,
  type Violation,
  enumFilter,
  pageAnswer,
  pageRequest,
} from "@voiceops/platform";
import {
  ListCallRequestsRequestSchema,
  CallRequestStatusSchema,
  type CancelCallRequestRequest,
  type EntityCallRequest,
  type GetCallRequestRequest,
  type ListCallRequestsRequest,
  type OutboundService,
  type QuickCallRequest,
} from "@voiceops/proto/voiceops/comms/v1/outbound_service_pb";
import { currentOrNextOpening, ONE_OFF_WINDOW } from "../outbound/calling-window.js";
import { hasNul } from "../outbound/contact-rows.js";
import { ONE_OFF_MAX_ATTEMPTS, type OutboundEngine } from "../outbound/engine.js";
import { toCallRequest } from "../store/outbound-rows.js";
import type { CrmLookup } from "../peers.js";
import { commsErrors } from "../errors.js";

function checkVariables(variables: JsonObject | undefined, violations: Violation[]): void {
  if (hasNul(variables)) violations.push(nulCharacter("variables"));
  else if (variables && JSON.stringify(variables).length > 20_000)
    violations.push(invalidValue("variables", "variables are too large (at most 20,000 characters as JSON)"));
}

/** One-off calls (quick and entity) and the call requests themselves. */
export function callRequestHandlers(service: ServiceContext, engine: OutboundEngine, crm: CrmLookup) {
  const { db } = service;
  const { requests, dnc } = engine.stores;

  /**
   * Stores a one-off call request in the organization's zone: due now inside the legal hours
   * (and announced at once), else at their next opening. 409 when the number is on the list.
   */
  async function oneOff(
    ctx: HandlerContext,
    org: OrgContext,
    call: { phoneNumber: string; contactId: string | null; agentPrompt: string | null; variables: JsonObject },
  ) {
    const now = service.clock.now();
    const opening = currentOrNextOpening(now, ONE_OFF_WINDOW, org.timezone);
    if (!opening) throw new ConnectError("the calling window never opens", Code.Internal);
    const open = opening.opensAt.getTime() <= now.getTime();
    const row = await service.write(ctx, async (tx, emit) => {
      if (await dnc.active(tx, org.orgId, call.phoneNumber, now)) throw commsErrors.PHONE_ON_DNC_LIST();
      const [inserted] = await requests.insert(tx, [
        {
          orgId: org.orgId,
          ...call,
          campaignId: null,
          campaignContactId: null,
          scheduledFor: open ? now : opening.opensAt,
          maxAttempts: ONE_OFF_MAX_ATTEMPTS,
          timezone: org.timezone,
          window: ONE_OFF_WINDOW,
          announcedAt: open ? now : null,
          windowClosesAt: open ? opening.closesAt : null,
        },
      ]);
      if (!inserted) throw new ConnectError("call request not stored", Code.Internal);
      if (open) engine.requested(emit, inserted);
      return inserted;
    });
    return { callRequest: toCallRequest(row) };
  }

  return {
    async quickCall(req: QuickCallRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const violations: Violation[] = [];
      checkVariables(req.variables, violations);
      if (violations.length > 0) throw invalidArgument(violations);
      // The field rule has checked the number already.
      const phoneNumber = normalizePhone(req.phoneNumber ?? "", org.country) as string;
      return oneOff(ctx, org, {
        phoneNumber,
        contactId: null,
        agentPrompt: blankToNull(req.agentPrompt),
        variables: req.variables ?? {},
      });
    },

    async entityCall(req: EntityCallRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const contactId = (req.contactId ?? "").toLowerCase();
      const leadId = req.leadId?.toLowerCase();
      const violations: Violation[] = [];
      checkVariables(req.variables, violations);
      const [contact, lead] = await Promise.all([
        crm.contact(org, contactId),
        leadId ? crm.lead(org, leadId) : undefined,
      ]);
      if (!contact) violations.push(referenceNotFound("contact_id", "contact", contactId));
      else if (!contact.phoneNumber)
        violations.push(invalidValue("contact_id", "the contact has no phone number", contactId));
      if (leadId && !lead) violations.push(referenceNotFound("lead_id", "lead", leadId));
      if (violations.length > 0 || !contact?.phoneNumber) throw invalidArgument(violations);
      const variables: JsonObject = { ...(req.variables ?? {}) };
      if (contact.name && variables.name === undefined) variables.name = contact.name;
      if (leadId) variables.lead_id = leadId;
      return oneOff(ctx, org, {
        phoneNumber: contact.phoneNumber,
        contactId: contact.id,
        agentPrompt: blankToNull(req.agentPrompt),
        variables,
      });
    },

    async listCallRequests(req: ListCallRequestsRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const paging = pageRequest(ListCallRequestsRequestSchema, req);
      const status = enumFilter(CallRequestStatusSchema, req.status);
      const listing = await requests.list(db, org.orgId, {
        ...paging,
        status,
        campaignId: req.campaignId?.toLowerCase(),
      });
      return pageAnswer(paging, listing, toCallRequest);
    },

    async getCallRequest(req: GetCallRequestRequest, ctx: HandlerContext) {
      const row = await requests.get(db, orgOf(ctx).orgId, req.callRequestId);
      if (!row) throw notFound("Call request");
      return { callRequest: toCallRequest(row) };
    },

    async cancelCallRequest(req: CancelCallRequestRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const row = await service.write(ctx, async (tx, emit) => {
        const current = await requests.get(tx, org.orgId, req.callRequestId, "FOR UPDATE");
        if (!current) throw notFound("Call request");
        if (current.campaign_id) throw commsErrors.CAMPAIGN_CALL_NOT_CANCELLABLE();
        if (current.status !== "queued") throw commsErrors.CALL_REQUEST_NOT_CANCELLABLE(current.status);
        const cancelled = await requests.finish(tx, current.id, "cancelled", service.clock.now());
        engine.finished(emit, cancelled);
        return cancelled;
      });
      return { callRequest: toCallRequest(row) };
    },
  } satisfies Partial<ServiceImpl<typeof OutboundService>>;
}
