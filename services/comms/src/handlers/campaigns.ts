import { create, type JsonObject } from "@bufbuild/protobuf";
import type { UploadedFile } from "@voiceops/proto/voiceops/api/v1/upload_pb";
import type { ServiceImpl } from "@connectrpc/connect";
import type { HandlerContext } from "@connectrpc/connect";
import {
  blankToNull,
  enumToJson,
  invalidArgument,
  orgOf,
  notFound,
  required,
  invalidValue,
  badFormat,
  type Emit,
  type Queryable,
  type ServiceContext,
  type Violation,
  withDefaults,
  enumFilter,
  pageAnswer,
  pageRequest,
} from "@voiceops/platform";
import {
  CreateCampaignRequestSchema,
  ListCampaignContactsRequestSchema,
  ListCampaignsRequestSchema,
  CampaignContactStatusSchema,
  CampaignStatusSchema,
  InvalidRowSchema,
  WeekdaySchema,
  type AddCampaignContactsRequest,
  type CallingWindowInput,
  type CancelCampaignRequest,
  type CreateCampaignRequest,
  type GetCampaignRequest,
  type InvalidRow,
  type ListCampaignContactsRequest,
  type ListCampaignsRequest,
  type OutboundService,
  type PauseCampaignRequest,
  type StartCampaignRequest,
} from "@voiceops/proto/voiceops/comms/v1/outbound_service_pb";
import {
  clampWindow,
  DEFAULT_CAMPAIGN_WINDOW,
  parseClock,
  type CallingWindow,
  type WeekdayName,
} from "../outbound/calling-window.js";
import { checkContactRow, type ContactRowInput } from "../outbound/contact-rows.js";
import { columnIndex, CsvRefused, readCsvLimits, readUploadedCsv } from "../outbound/csv.js";
import type { OutboundEngine } from "../outbound/engine.js";
import type { NewCampaignContact } from "../store/campaigns.js";
import { toCampaign, toCampaignContact, type CampaignRow } from "../store/outbound-rows.js";
import type { CrmLookup } from "../peers.js";
import { commsErrors } from "../errors.js";

/** Most data rows one upload may hold. */
const MAX_ROWS = 10_000;

/** The window a create asks for, with defaults for omitted parts, clamped; or its violations. */
function windowInput(input: CallingWindowInput | undefined, violations: Violation[]): CallingWindow {
  const start = input?.start ?? DEFAULT_CAMPAIGN_WINDOW.start;
  const end = input?.end ?? DEFAULT_CAMPAIGN_WINDOW.end;
  const days = (input?.days ?? []).map((day) => enumToJson(WeekdaySchema, day) as WeekdayName);
  let bad = false;
  for (const [name, value] of [
    ["start", start],
    ["end", end],
  ] as const) {
    if (parseClock(value) === undefined) {
      violations.push(badFormat(`calling_window.${name}`, "time", value, "not a time of day as HH:MM (24-hour)"));
      bad = true;
    }
  }
  const window = clampWindow({ start, end, days: days.length > 0 ? days : DEFAULT_CAMPAIGN_WINDOW.days });
  if (!bad && (parseClock(window.start) as number) >= (parseClock(window.end) as number)) {
    violations.push(
      invalidValue("calling_window", "the window has no time between 08:00 and 21:00 (start must be before end)", {
        start,
        end,
      }),
    );
  }
  return window;
}

/** Campaigns: create, list, read, start, pause, cancel, and their contacts. */
export function campaignHandlers(service: ServiceContext, engine: OutboundEngine, crm: CrmLookup, nudge: () => void) {
  const { db } = service;
  const csvLimits = readCsvLimits(service.env);
  const { campaigns, dnc } = engine.stores;

  async function present(row: CampaignRow) {
    const counts = (await campaigns.counts(db, [row.id])).get(row.id);
    return { campaign: toCampaign(row, counts) };
  }

  /** Applies a status change under the campaign's lock; `from` lists the statuses it may leave. */
  async function transition(
    ctx: HandlerContext,
    orgId: string,
    id: string,
    change: (row: CampaignRow, tx: Queryable, emit: Emit) => Promise<CampaignRow>,
  ) {
    const row = await service.write(ctx, async (tx, emit) => {
      const current = await campaigns.get(tx, orgId, id, "FOR UPDATE");
      if (!current) throw notFound("Campaign");
      const changed = await change(current, tx, emit);
      await engine.campaignChanged(tx, emit, changed);
      return changed;
    });
    nudge();
    return present(row);
  }

  return {
    async createCampaign(req: CreateCampaignRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const violations: Violation[] = [];
      const window = windowInput(req.callingWindow, violations);
      if (violations.length > 0) throw invalidArgument(violations);
      const { maxAttempts, retryDelayMinutes, maxConcurrentCalls } = withDefaults(
        CreateCampaignRequestSchema,
        req,
        "maxAttempts",
        "retryDelayMinutes",
        "maxConcurrentCalls",
      );
      const row = await service.write(ctx, async (tx, emit) => {
        const created = await campaigns.insert(tx, org.orgId, {
          name: (req.name ?? "").trim(),
          agentPrompt: blankToNull(req.agentPrompt),
          window,
          timezone: org.timezone,
          maxAttempts,
          retryDelayMinutes,
          maxConcurrentCalls,
        });
        engine.campaignCreated(emit, created);
        return created;
      });
      return { campaign: toCampaign(row) };
    },

    async listCampaigns(req: ListCampaignsRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const paging = pageRequest(ListCampaignsRequestSchema, req);
      const status = enumFilter(CampaignStatusSchema, req.status);
      const listing = await campaigns.list(db, org.orgId, { ...paging, status });
      const counts = await campaigns.counts(
        db,
        listing.rows.map((row) => row.id),
      );
      return pageAnswer(paging, listing, (row) => toCampaign(row, counts.get(row.id)));
    },

    async getCampaign(req: GetCampaignRequest, ctx: HandlerContext) {
      const row = await campaigns.get(db, orgOf(ctx).orgId, req.campaignId);
      if (!row) throw notFound("Campaign");
      return present(row);
    },

    async startCampaign(req: StartCampaignRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      return transition(ctx, org.orgId, req.campaignId, async (row, tx) => {
        if (row.status !== "draft" && row.status !== "paused")
          throw commsErrors.CAMPAIGN_STATUS_CONFLICT(row.status, "started");
        if ((await campaigns.contactCount(tx, row.id)) === 0) throw commsErrors.CAMPAIGN_HAS_NO_CONTACTS();
        return campaigns.setStatus(tx, row.id, "running", { startedAt: service.clock.now(), timezone: org.timezone });
      });
    },

    async pauseCampaign(req: PauseCampaignRequest, ctx: HandlerContext) {
      return transition(ctx, orgOf(ctx).orgId, req.campaignId, async (row, tx, emit) => {
        if (row.status !== "running") throw commsErrors.CAMPAIGN_STATUS_CONFLICT(row.status, "paused");
        const withdrawn = await campaigns.withdraw(tx, row.id, "pause");
        await announceWithdrawn(tx, emit, row.org_id, withdrawn);
        return campaigns.setStatus(tx, row.id, "paused");
      });
    },

    async cancelCampaign(req: CancelCampaignRequest, ctx: HandlerContext) {
      return transition(ctx, orgOf(ctx).orgId, req.campaignId, async (row, tx, emit) => {
        if (row.status === "completed" || row.status === "cancelled")
          throw commsErrors.CAMPAIGN_STATUS_CONFLICT(row.status, "cancelled");
        const withdrawn = await campaigns.withdraw(tx, row.id, "cancel");
        await announceWithdrawn(tx, emit, row.org_id, withdrawn);
        return campaigns.setStatus(tx, row.id, "cancelled");
      });
    },

    async addCampaignContacts(req: AddCampaignContactsRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const existing = await campaigns.get(db, org.orgId, req.campaignId);
      if (!existing) throw notFound("Campaign");
      assertOpen(existing);
      if (req.contactIds.length > 0 && req.contacts.length > 0) {
        throw invalidArgument([invalidValue("", "give contact_ids or contacts, not both")]);
      }
      if (!req.file && req.contactIds.length === 0 && req.contacts.length === 0) {
        throw invalidArgument([required("contact_ids", "contact_ids (CRM contacts) or contacts (rows)")]);
      }
      let inputs: (ContactRowInput | string)[];
      if (req.file) {
        inputs = await csvRows(req.file);
      } else if (req.contactIds.length > 0) {
        const found = await crm.contacts(org, req.contactIds);
        inputs = found.map((contact) => {
          if (!contact) return "contact not found";
          if (!contact.phoneNumber) return "contact has no phone number";
          return { phoneNumber: contact.phoneNumber, name: contact.name, email: contact.email, contactId: contact.id };
        });
      } else {
        inputs = req.contacts.map((row) => ({ ...row }));
      }
      return importContacts(ctx, org.orgId, org.country, req.campaignId, inputs);
    },

    async listCampaignContacts(req: ListCampaignContactsRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      if (!(await campaigns.get(db, org.orgId, req.campaignId))) throw notFound("Campaign");
      const paging = pageRequest(ListCampaignContactsRequestSchema, req);
      const status = enumFilter(CampaignContactStatusSchema, req.status);
      const listing = await campaigns.listContacts(db, org.orgId, req.campaignId, { ...paging, status });
      return pageAnswer(paging, listing, toCampaignContact);
    },
  } satisfies Partial<ServiceImpl<typeof OutboundService>>;

  /** The rows of an uploaded CSV file as contact inputs (its extra columns as variables). */
  async function csvRows(file: UploadedFile): Promise<ContactRowInput[]> {
    let table;
    try {
      table = await readUploadedCsv(service.objects, file, MAX_ROWS, csvLimits);
    } catch (error) {
      if (error instanceof CsvRefused) throw invalidArgument([invalidValue("file", error.message)]);
      throw error;
    }
    const { header, rows } = table;
    const phone = columnIndex(header, "phone_number", "phone");
    if (phone < 0)
      throw invalidArgument([
        invalidValue("file", "the header row has no phone_number (or phone) column", header.slice(0, 50)),
      ]);
    const known = {
      name: columnIndex(header, "name"),
      email: columnIndex(header, "email"),
      contactId: columnIndex(header, "contact_id"),
      timezone: columnIndex(header, "timezone"),
    };
    const taken = new Set([phone, ...Object.values(known)]);
    const extra = header
      .map((name, index) => ({ name, index }))
      .filter((column) => column.name !== "" && !taken.has(column.index));
    const cell = (row: string[], index: number) => (index < 0 ? undefined : row[index]);
    return rows.map((row) => {
      const variables: JsonObject = {};
      for (const column of extra) {
        const value = row[column.index];
        if (value !== undefined && value !== "") variables[column.name] = value;
      }
      return {
        phoneNumber: cell(row, phone),
        name: cell(row, known.name),
        email: cell(row, known.email),
        contactId: cell(row, known.contactId),
        timezone: cell(row, known.timezone),
        variables,
      };
    });
  }

  function assertOpen(row: CampaignRow): void {
    if (row.status === "completed" || row.status === "cancelled") {
      throw commsErrors.CAMPAIGN_CLOSED_TO_CONTACTS(row.status);
    }
  }

  async function announceWithdrawn(tx: Queryable, emit: Emit, orgId: string, ids: string[]) {
    for (const id of ids) {
      const row = await engine.stores.requests.get(tx, orgId, id);
      if (row) engine.finished(emit, row);
    }
  }

  /**
   * Checks rows (an input that is already a reason is an invalid row), drops repeated numbers,
   * marks numbers on the do-not-call list and stores the rest in one statement.
   */
  async function importContacts(
    ctx: HandlerContext,
    orgId: string,
    country: string,
    campaignId: string,
    inputs: (ContactRowInput | string)[],
  ) {
    const invalid: InvalidRow[] = [];
    const valid: Omit<NewCampaignContact, "status">[] = [];
    inputs.forEach((input, index) => {
      const result =
        typeof input === "string" ? ({ ok: false, reason: input } as const) : checkContactRow(input, country);
      if (result.ok) valid.push(result.contact);
      else invalid.push(create(InvalidRowSchema, { row: index + 1, reason: result.reason }));
    });
    // The first of repeated numbers is kept, in input order.
    const seen = new Set<string>();
    const firsts = valid.filter((c) => {
      if (seen.has(c.phoneNumber)) return false;
      seen.add(c.phoneNumber);
      return true;
    });
    const added = await service.write(ctx, async (tx) => {
      const campaign = await campaigns.get(tx, orgId, campaignId, "FOR SHARE");
      if (!campaign) throw notFound("Campaign");
      assertOpen(campaign);
      const listed = await dnc.blocked(
        tx,
        orgId,
        firsts.map((c) => c.phoneNumber),
        service.clock.now(),
      );
      const rows: NewCampaignContact[] = firsts.map((c) => ({
        ...c,
        status: listed.has(c.phoneNumber) ? "skipped_dnc" : "pending",
      }));
      return campaigns.addContacts(tx, orgId, campaignId, rows);
    });
    nudge();
    const onDnc = added.filter((row) => row.status === "skipped_dnc").length;
    return { imported: added.length - onDnc, duplicates: valid.length - added.length, invalid, onDnc };
  }
}
