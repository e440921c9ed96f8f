import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  columnValues,
  type Emit,
  endOfLocalDay,
  invalidArgument,
  newEvent,
  orgOf,
  updatedFields,
  notFound,
  invalidValue,
  type OrgContext,
  type Queryable,
  type ServiceContext,
  type Violation,
  pageAnswer,
  pageRequest,
} from "@voiceops/platform";
import {
  ContactUpdatedSchema,
  LeadCreatedSchema,
  LeadDeletedSchema,
  LeadUpdatedSchema,
} from "@voiceops/proto/voiceops/crm/v1/crm_events_pb";
import {
  CreateLeadRequestSchema,
  LeadFieldsSchema,
  LeadStatus,
  ListLeadsRequestSchema,
  type CreateLeadRequest,
  type DeleteLeadRequest,
  type GetLeadRequest,
  type ListLeadsRequest,
  type UpdateLeadRequest,
  type CrmService,
} from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";
import type { LeadValues } from "../store/leads.js";
import { contactInput, upsertContact } from "../contacts/upsert.js";
import { leadStatusText, toContact, toLead, type LeadRow } from "../store/rows.js";
import type { CrmStores } from "../store/index.js";

const DAY_MS = 24 * 60 * 60 * 1000;
const LEAD_INPUT_FIELDS = [
  "status",
  "source",
  "notes",
  "estimated_value_cents",
  "next_step",
  "next_step_due_at",
  "lost_reason",
] as const;

/**
 * The won/lost rules. Entering "lost" needs a reason and stamps lost_at; entering "won" stamps
 * won_at and names the contact as the customer; leaving either clears its stamp.
 */
function applyOutcome(
  values: LeadValues,
  previous: LeadRow | undefined,
  contactId: string,
  path: string,
): { violations: Violation[]; won: boolean } {
  const status = (values.status ?? previous?.status) as string;
  const violations: Violation[] = [];
  const wasStatus = previous?.status;
  if (status === "lost") {
    const reason = "lost_reason" in values ? values.lost_reason : previous?.lost_reason;
    if (!reason)
      violations.push(invalidValue(`${path}lost_reason`, "lost_reason is required when status is lost", null));
    if (wasStatus !== "lost") values.lost_at = new Date();
    if (wasStatus === "won") values.won_at = null;
  } else if (status === "won") {
    if (wasStatus !== "won") values.won_at = new Date();
    values.customer_id = contactId;
    if (wasStatus === "lost") Object.assign(values, { lost_at: null, lost_reason: null });
  } else {
    if (wasStatus === "lost") Object.assign(values, { lost_at: null, lost_reason: null });
    if (wasStatus === "won") values.won_at = null;
  }
  return { violations, won: status === "won" && wasStatus !== "won" };
}

export function leadHandlers(service: ServiceContext, stores: CrmStores, pipelineDays: number) {
  const { db } = service;
  const { leads, contacts } = stores;

  async function markCustomer(tx: Queryable, org: OrgContext, contactId: string, emit: Emit): Promise<void> {
    const contact = await contacts.get(tx, org.orgId, contactId);
    if (!contact || contact.status === "customer") return;
    const updated = await contacts.update(tx, org.orgId, contactId, { status: "customer" });
    if (updated)
      emit(
        newEvent(
          org.orgId,
          "crm.contact.updated",
          ContactUpdatedSchema,
          create(ContactUpdatedSchema, { contact: toContact(updated) }),
        ),
      );
  }

  async function readLead(tx: Queryable, orgId: string, id: string): Promise<LeadRow> {
    const row = await leads.get(tx, orgId, id);
    if (!row) throw notFound("Lead");
    return row;
  }

  return {
    async listLeads(req: ListLeadsRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const paging = pageRequest(ListLeadsRequestSchema, req);
      const listing = await leads.list(db, org.orgId, {
        ...paging,
        status: req.status === undefined ? undefined : leadStatusText(req.status),
        search: req.search?.trim() || undefined,
        staleBefore: req.staleDays === undefined ? undefined : new Date(Date.now() - req.staleDays * DAY_MS),
        dueBefore: req.dueDays === undefined ? undefined : endOfLocalDay(org.timezone, req.dueDays),
      });
      return pageAnswer(paging, listing, toLead);
    },

    async createLead(req: CreateLeadRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const { values } = columnValues<LeadValues>(CreateLeadRequestSchema, req, LEAD_INPUT_FIELDS);
      // Every failing field is reported at once: the contact fields, the lost rule and (checked in
      // the transaction) a contact_id that is not in the org. Nothing is written when any fails.
      const violations = [
        ...contactInput(org, req).violations,
        ...applyOutcome({ ...values }, undefined, "", "").violations,
      ];
      const row = await service.write(ctx, async (tx, emit) => {
        const contact = await upsertContact(tx, contacts, org, req, emit, violations);
        const { won } = applyOutcome(values, undefined, contact.id, "");
        if (won) await markCustomer(tx, org, contact.id, emit);
        const id = await leads.insert(tx, org.orgId, contact.id, values);
        const lead = await readLead(tx, org.orgId, id);
        emit(
          newEvent(org.orgId, "crm.lead.created", LeadCreatedSchema, create(LeadCreatedSchema, { lead: toLead(lead) })),
        );
        return lead;
      });
      return { lead: toLead(row) };
    },

    async getLeadPipeline(_req: unknown, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const since = new Date(Date.now() - pipelineDays * DAY_MS);
      const summary = await leads.pipeline(db, org.orgId, since);
      const byStatus: Record<string, number> = {};
      for (const status of [
        LeadStatus.NEW,
        LeadStatus.CONTACTED,
        LeadStatus.QUALIFIED,
        LeadStatus.PROPOSAL,
        LeadStatus.WON,
        LeadStatus.LOST,
      ]) {
        const name = leadStatusText(status);
        byStatus[name] = Number(summary?.by_status?.[name] ?? 0);
      }
      return {
        windowDays: pipelineDays,
        byStatus,
        wonCount: summary?.won_count ?? 0,
        lostCount: summary?.lost_count ?? 0,
        recentLossReasons: (summary?.losses ?? []).map((loss) => ({
          leadId: loss.lead_id,
          reason: loss.reason,
          lostAt: timestampFromDate(new Date(loss.lost_at)),
        })),
        customersWon: (summary?.wins ?? []).map((win) => ({
          contactId: win.contact_id,
          name: win.name ?? undefined,
          wonAt: timestampFromDate(new Date(win.won_at)),
        })),
      };
    },

    async getLead(req: GetLeadRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      return { lead: toLead(await readLead(db, org.orgId, req.leadId)) };
    },

    async updateLead(req: UpdateLeadRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const fields = updatedFields(LeadFieldsSchema, req.lead, req.updateMask, LEAD_INPUT_FIELDS);
      const { values } = columnValues<LeadValues>(LeadFieldsSchema, req.lead ?? create(LeadFieldsSchema), fields);
      const row = await service.write(ctx, async (tx, emit) => {
        const previous = await readLead(tx, org.orgId, req.leadId);
        if (fields.length === 0) return previous;
        const { violations, won } = applyOutcome(values, previous, previous.contact_id, "lead.");
        if (violations.length > 0) throw invalidArgument(violations);
        if (won) await markCustomer(tx, org, previous.contact_id, emit);
        await leads.update(tx, org.orgId, req.leadId, values);
        const lead = await readLead(tx, org.orgId, req.leadId);
        emit(
          newEvent(org.orgId, "crm.lead.updated", LeadUpdatedSchema, create(LeadUpdatedSchema, { lead: toLead(lead) })),
        );
        return lead;
      });
      return { lead: toLead(row) };
    },

    async deleteLead(req: DeleteLeadRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      await service.write(ctx, async (tx, emit) => {
        const deleted = await leads.delete(tx, org.orgId, req.leadId);
        if (!deleted) throw notFound("Lead");
        emit(
          newEvent(
            org.orgId,
            "crm.lead.deleted",
            LeadDeletedSchema,
            create(LeadDeletedSchema, { leadId: req.leadId, contactId: deleted.contact_id }),
          ),
        );
      });
      return {};
    },
  } satisfies Partial<ServiceImpl<typeof CrmService>>;
}
