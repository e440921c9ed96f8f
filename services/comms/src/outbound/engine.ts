import { create, type JsonObject } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { newEvent, type Emit, type Queryable, type ServiceContext } from "@voiceops/platform";
import {
  CampaignCreatedSchema,
  CampaignStatusChangedSchema,
  DncEntriesAddedSchema,
  DncEntryCreatedSchema,
  DncEntryDeletedSchema,
  OutboundCallFinishedSchema,
  OutboundCallRequestedSchema,
} from "@voiceops/proto/voiceops/comms/v1/outbound_events_pb";
import { ClaimedCallSchema, DncSource, type ClaimedCall } from "@voiceops/proto/voiceops/comms/v1/outbound_service_pb";
import type { CallRequestStore, NewCallRequest } from "../store/call-requests.js";
import type { CampaignStore } from "../store/campaigns.js";
import type { DncStore } from "../store/dnc.js";
import {
  toCallRequest,
  toCampaign,
  toDncEntry,
  windowOfCampaign,
  windowOfRequest,
  type CallRequestRow,
  type CampaignContactRow,
  type CampaignRow,
  type DncRow,
  type ContactStatusName,
} from "../store/outbound-rows.js";
import { currentOrNextOpening } from "./calling-window.js";
import { dispositionOf } from "./dispositions.js";

/** How long a claim by the voice runtime holds before the call returns to the queue. */
export const LEASE_MS = 10 * 60 * 1000;

/** How many times a one-off call request may be claimed (leases that run out included). */
export const ONE_OFF_MAX_ATTEMPTS = 3;

const MINUTE = 60 * 1000;

interface OutboundStores {
  dnc: DncStore;
  campaigns: CampaignStore;
  requests: CallRequestStore;
}

/** What a CALL_ENDED activity reports about an outbound call. */
interface CallResult {
  callRequestId: string;
  disposition: string | undefined;
  sessionId: string | undefined;
}

/**
 * The rules of outbound calling shared by the handlers, the scheduler and the result consumer:
 * making call requests for due campaign contacts, handing them to the voice runtime under a
 * lease, and recording what came back. Every step runs in one transaction that locks what it
 * changes (campaign, then requests, then contacts), skipping rows another replica holds.
 */
export class OutboundEngine {
  constructor(
    private readonly context: ServiceContext,
    readonly stores: OutboundStores,
  ) {}

  private now(): Date {
    return this.context.clock.now();
  }

  // --- events --------------------------------------------------------------------------

  requested(emit: Emit, row: CallRequestRow): void {
    emit(
      newEvent(
        row.org_id,
        "comms.outbound_call.requested",
        OutboundCallRequestedSchema,
        create(OutboundCallRequestedSchema, { callRequest: toCallRequest(row) }),
      ),
    );
  }

  finished(emit: Emit, row: CallRequestRow): void {
    emit(
      newEvent(
        row.org_id,
        "comms.outbound_call.finished",
        OutboundCallFinishedSchema,
        create(OutboundCallFinishedSchema, { callRequest: toCallRequest(row) }),
      ),
    );
  }

  campaignCreated(emit: Emit, row: CampaignRow): void {
    emit(
      newEvent(
        row.org_id,
        "comms.campaign.created",
        CampaignCreatedSchema,
        create(CampaignCreatedSchema, { campaign: toCampaign(row) }),
      ),
    );
  }

  async campaignChanged(tx: Queryable, emit: Emit, row: CampaignRow): Promise<void> {
    const counts = (await this.stores.campaigns.counts(tx, [row.id])).get(row.id);
    emit(
      newEvent(
        row.org_id,
        "comms.campaign.status_changed",
        CampaignStatusChangedSchema,
        create(CampaignStatusChangedSchema, { campaign: toCampaign(row, counts) }),
      ),
    );
  }

  dncAdded(emit: Emit, orgId: string, entries: DncRow[], source: DncSource): void {
    if (entries.length === 0) return;
    emit(
      newEvent(
        orgId,
        "comms.dnc.added",
        DncEntriesAddedSchema,
        create(DncEntriesAddedSchema, { phoneNumbers: entries.map((entry) => entry.phone_number), source }),
      ),
    );
    for (const entry of entries) {
      emit(
        newEvent(
          orgId,
          "comms.dnc_entry.created",
          DncEntryCreatedSchema,
          create(DncEntryCreatedSchema, { entry: toDncEntry(entry) }),
        ),
      );
    }
  }

  dncDeleted(emit: Emit, orgId: string, entryId: string): void {
    emit(newEvent(orgId, "comms.dnc_entry.deleted", DncEntryDeletedSchema, create(DncEntryDeletedSchema, { entryId })));
  }

  // --- the scheduler's passes ------------------------------------------------------------

  /** One pass of the scheduler; returns how many rows it moved (0 = nothing to do). */
  async tick(): Promise<number> {
    let moved = 0;
    moved += await this.expireLeases();
    moved += await this.announceDue();
    moved += await this.rescheduleClosed();
    moved += await this.dispatchCampaigns();
    return moved;
  }

  /** Requests whose lease ran out go back to the queue, or fail once their attempts are used. */
  async expireLeases(): Promise<number> {
    const now = this.now();
    return this.context.write(async (tx, emit) => {
      const rows = await this.stores.requests.lockExpiredLeases(tx, now, 100);
      for (const row of rows) {
        if (row.attempts < row.max_attempts) {
          await this.stores.requests.requeue(tx, row.id, now);
          if (row.campaign_contact_id)
            await this.stores.campaigns.updateContacts(tx, [row.campaign_contact_id], {
              status: "queued",
              nextAttemptAt: now,
            });
        } else {
          const failed = await this.stores.requests.finish(tx, row.id, "failed", now, { disposition: "failed" });
          this.finished(emit, failed);
          await this.afterResult(tx, failed, "failed", null, now);
        }
      }
      return rows.length;
    });
  }

  /**
   * Queued requests that came due: announced (comms.outbound_call.requested) inside their
   * window, put off to its next opening outside it, blocked when the number is now on the
   * do-not-call list.
   */
  async announceDue(): Promise<number> {
    const now = this.now();
    return this.context.write(async (tx, emit) => {
      const rows = await this.stores.requests.lockDueUnannounced(tx, now, 200);
      const blocked = await this.blockedAmong(tx, rows, now);
      for (const row of rows) {
        if (blocked.has(row.id)) {
          await this.block(tx, emit, row, now);
          continue;
        }
        const opening = currentOrNextOpening(now, windowOfRequest(row), row.timezone);
        if (!opening) {
          this.finished(emit, await this.stores.requests.finish(tx, row.id, "cancelled", now));
        } else if (opening.opensAt.getTime() <= now.getTime()) {
          this.requested(emit, await this.stores.requests.announce(tx, row.id, now, opening.closesAt));
        } else {
          await this.putOff(tx, row, opening.opensAt);
        }
      }
      return rows.length;
    });
  }

  /** Announced requests nobody claimed before their window closed wait for the next opening. */
  async rescheduleClosed(): Promise<number> {
    const now = this.now();
    return this.context.write(async (tx) => {
      const rows = await this.stores.requests.lockClosed(tx, now, 200);
      for (const row of rows) {
        const opening = currentOrNextOpening(now, windowOfRequest(row), row.timezone);
        await this.putOff(tx, row, opening?.opensAt ?? now);
      }
      return rows.length;
    });
  }

  /** Every running campaign gets its turn; one a replica is already serving is skipped. */
  async dispatchCampaigns(): Promise<number> {
    let moved = 0;
    for (const { id } of await this.stores.campaigns.runningIds(this.context.db, 1000)) {
      moved += await this.dispatchCampaign(id);
    }
    return moved;
  }

  /**
   * Turns a running campaign's due contacts into call requests: inside the window (the
   * contact's zone when known, else the campaign's), never more than max_concurrent_calls
   * queued or dialing, the do-not-call list checked just before. Completes the campaign when
   * nobody is left to call.
   */
  async dispatchCampaign(campaignId: string): Promise<number> {
    const now = this.now();
    return this.context.write(async (tx, emit) => {
      const campaign = await this.stores.campaigns.lockRunning(tx, campaignId);
      if (!campaign) return 0;
      const window = windowOfCampaign(campaign);
      const campaignOpening = currentOrNextOpening(now, window, campaign.timezone);
      const openForAll = campaignOpening !== undefined && campaignOpening.opensAt.getTime() <= now.getTime();
      let free = campaign.max_concurrent_calls - (await this.stores.campaigns.inFlight(tx, campaign.id));
      let moved = 0;
      if (!openForAll && campaignOpening)
        moved += await this.stores.campaigns.deferPending(tx, campaign.id, campaignOpening.opensAt);
      for (let round = 0; free > 0 && round < 20; round++) {
        const candidates = await this.stores.campaigns.lockDueContacts(tx, campaign.id, now, free, openForAll);
        if (candidates.length === 0) break;
        moved += candidates.length;
        const listed = await this.stores.dnc.blocked(
          tx,
          campaign.org_id,
          candidates.map((c) => c.phone_number),
          now,
        );
        const requests: NewCallRequest[] = [];
        const queued: CampaignContactRow[] = [];
        for (const contact of candidates) {
          if (listed.has(contact.phone_number)) {
            await this.stores.campaigns.updateContacts(tx, [contact.id], {
              status: "skipped_dnc",
              nextAttemptAt: null,
            });
            continue;
          }
          const zone = contact.timezone ?? campaign.timezone;
          const opening = contact.timezone ? currentOrNextOpening(now, window, zone) : campaignOpening;
          if (!opening) {
            await this.stores.campaigns.updateContacts(tx, [contact.id], { status: "failed", nextAttemptAt: null });
            continue;
          }
          if (opening.opensAt.getTime() > now.getTime()) {
            await this.stores.campaigns.updateContacts(tx, [contact.id], {
              status: "pending",
              nextAttemptAt: opening.opensAt,
            });
            continue;
          }
          queued.push(contact);
          requests.push({
            orgId: campaign.org_id,
            phoneNumber: contact.phone_number,
            contactId: contact.contact_id,
            campaignId: campaign.id,
            campaignContactId: contact.id,
            agentPrompt: campaign.agent_prompt,
            variables: contactVariables(contact),
            scheduledFor: now,
            maxAttempts: Math.max(1, campaign.max_attempts - contact.attempts),
            timezone: zone,
            window,
            announcedAt: now,
            windowClosesAt: opening.closesAt,
          });
        }
        for (const row of await this.stores.requests.insert(tx, requests)) this.requested(emit, row);
        await this.stores.campaigns.updateContacts(
          tx,
          queued.map((c) => c.id),
          { status: "queued", nextAttemptAt: now },
        );
        free -= queued.length;
      }
      if ((await this.stores.campaigns.remaining(tx, campaign.id)) === 0) {
        const completed = await this.stores.campaigns.setStatus(tx, campaign.id, "completed", { completedAt: now });
        await this.campaignChanged(tx, emit, completed);
        moved++;
      }
      return moved;
    });
  }

  // --- the voice runtime ---------------------------------------------------------------

  /**
   * Leases up to `max` due requests of an organization to the voice runtime. Each is checked
   * once more against its window and the do-not-call list at this moment. `call`: the RPC it
   * serves, whose idempotency key the write marks.
   */
  async claim(call: HandlerContext, orgId: string, max: number): Promise<{ calls: ClaimedCall[]; claimedAt: Date }> {
    const now = this.now();
    const calls = await this.context.write(call, async (tx, emit) => {
      const rows = await this.stores.requests.lockClaimable(tx, orgId, now, max * 2 + 10);
      const blocked = await this.blockedAmong(tx, rows, now);
      const claimed: ClaimedCall[] = [];
      for (const row of rows) {
        if (claimed.length >= max) break;
        if (blocked.has(row.id)) {
          await this.block(tx, emit, row, now);
          continue;
        }
        const opening = currentOrNextOpening(now, windowOfRequest(row), row.timezone);
        if (!opening || opening.opensAt.getTime() > now.getTime()) {
          await this.putOff(tx, row, opening?.opensAt ?? now);
          continue;
        }
        const leaseUntil = new Date(now.getTime() + LEASE_MS);
        const dialing = await this.stores.requests.markDialing(tx, row.id, now, leaseUntil);
        let attempt = dialing.attempts;
        if (row.campaign_contact_id) {
          await this.stores.campaigns.updateContacts(tx, [row.campaign_contact_id], {
            status: "dialing",
            lastAttemptAt: now,
            nextAttemptAt: null,
            addAttempt: true,
          });
          attempt = (await this.stores.campaigns.getContact(tx, row.campaign_contact_id))?.attempts ?? attempt;
        }
        claimed.push(
          create(ClaimedCallSchema, {
            callRequest: toCallRequest(dialing),
            leaseExpiresAt: timestampFromDate(leaseUntil),
            attempt,
          }),
        );
      }
      return claimed;
    });
    return { calls, claimedAt: now };
  }

  /**
   * Records the end of a call reported by the voice runtime (a CALL_ENDED activity): the
   * request is completed (failed for the `failed` disposition), its campaign contact is done,
   * retried later or failed, and a do_not_call disposition lists the number. A request that
   * already ended, or was never claimed, is left as it is; but a do_not_call disposition lists
   * its number all the same (the person asked, whatever the request's bookkeeping says).
   */
  async recordResult(tx: Queryable, emit: Emit, orgId: string, result: CallResult): Promise<boolean> {
    const now = this.now();
    const peek = await this.stores.requests.get(tx, orgId, result.callRequestId);
    if (!peek) return false;
    const disposition = dispositionOf(result.disposition);
    // Lock order: the campaign first, as pause and cancel do.
    if (peek.campaign_id) await this.stores.campaigns.get(tx, orgId, peek.campaign_id, "FOR SHARE");
    const request = await this.stores.requests.get(tx, orgId, result.callRequestId, "FOR UPDATE");
    if (!request || (request.status !== "dialing" && request.status !== "queued") || request.attempts === 0) {
      if (disposition.outcome === "dnc") await this.listAskedNotToCall(tx, emit, orgId, peek.phone_number, now);
      return false;
    }
    const finished = await this.stores.requests.finish(
      tx,
      request.id,
      disposition.code === "failed" ? "failed" : "completed",
      now,
      {
        disposition: disposition.code,
        sessionId: result.sessionId || null,
      },
    );
    this.finished(emit, finished);
    if (disposition.outcome === "dnc") await this.listAskedNotToCall(tx, emit, orgId, request.phone_number, now);
    await this.afterResult(tx, finished, disposition.code, result.sessionId || null, now);
    return true;
  }

  // --- helpers -------------------------------------------------------------------------

  /** Lists a number whose call ended with a do_not_call disposition. */
  private async listAskedNotToCall(
    tx: Queryable,
    emit: Emit,
    orgId: string,
    phoneNumber: string,
    now: Date,
  ): Promise<void> {
    const added = await this.stores.dnc.add(
      tx,
      orgId,
      { phoneNumbers: [phoneNumber], reason: "Asked not to be called again", source: "disposition", expiresAt: null },
      now,
    );
    this.dncAdded(emit, orgId, added, DncSource.DISPOSITION);
  }

  /** Moves a request's campaign contact on after its call ended with `code`. */
  private async afterResult(
    tx: Queryable,
    request: CallRequestRow,
    code: string,
    sessionId: string | null,
    now: Date,
  ): Promise<void> {
    if (!request.campaign_contact_id || !request.campaign_id) return;
    const contact = await this.stores.campaigns.getContact(tx, request.campaign_contact_id);
    const campaign = await this.stores.campaigns.get(tx, request.org_id, request.campaign_id);
    if (!contact || !campaign) return;
    const disposition = dispositionOf(code);
    let status: ContactStatusName;
    let nextAttemptAt: Date | null = null;
    if (disposition.isFinal) status = "completed";
    else if (contact.attempts >= campaign.max_attempts) status = "failed";
    else if (campaign.status === "cancelled" || campaign.status === "completed") status = "cancelled";
    else {
      status = "pending";
      nextAttemptAt = new Date(now.getTime() + campaign.retry_delay_minutes * MINUTE);
    }
    await this.stores.campaigns.updateContacts(tx, [contact.id], {
      status,
      nextAttemptAt,
      disposition: disposition.code,
      sessionId,
    });
  }

  /** Ids of the requests whose number is on the do-not-call list now (one query per organization). */
  private async blockedAmong(tx: Queryable, rows: readonly CallRequestRow[], now: Date): Promise<Set<string>> {
    const out = new Set<string>();
    const byOrg = new Map<string, CallRequestRow[]>();
    for (const row of rows) byOrg.set(row.org_id, [...(byOrg.get(row.org_id) ?? []), row]);
    for (const [orgId, list] of byOrg) {
      const listed = await this.stores.dnc.blocked(
        tx,
        orgId,
        list.map((r) => r.phone_number),
        now,
      );
      for (const row of list) if (listed.has(row.phone_number)) out.add(row.id);
    }
    return out;
  }

  private async block(tx: Queryable, emit: Emit, row: CallRequestRow, now: Date): Promise<void> {
    this.finished(emit, await this.stores.requests.finish(tx, row.id, "blocked", now));
    if (row.campaign_contact_id)
      await this.stores.campaigns.updateContacts(tx, [row.campaign_contact_id], {
        status: "skipped_dnc",
        nextAttemptAt: null,
      });
  }

  private async putOff(tx: Queryable, row: CallRequestRow, until: Date): Promise<void> {
    await this.stores.requests.reschedule(tx, row.id, until);
    if (row.campaign_contact_id)
      await this.stores.campaigns.updateContacts(tx, [row.campaign_contact_id], {
        status: "queued",
        nextAttemptAt: until,
      });
  }
}

/** What the agent is given about a campaign contact: its row's variables, name and email. */
function contactVariables(contact: CampaignContactRow): JsonObject {
  const variables: JsonObject = { ...(contact.variables ?? {}) };
  if (contact.name && variables.name === undefined) variables.name = contact.name;
  if (contact.email && variables.email === undefined) variables.email = contact.email;
  return variables;
}
