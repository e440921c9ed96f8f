import { create } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  blankToNull,
  endOfLocalDay,
  enumToJson,
  invalidArgument,
  newEvent,
  orgOf,
  pgErrorCode,
  PgErrorCode,
  updatedFields,
  notFound,
  referenceNotFound,
  type DomainEvent,
  type OrgContext,
  type Queryable,
  type ServiceContext,
  type Violation,
} from "@voiceops/platform";
import {
  DispatchCancelledSchema,
  DispatchCreatedSchema,
  DispatchUpdatedSchema,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_events_pb";
import {
  DispatchFieldsSchema,
  type CancelDispatchRequest,
  type CreateDispatchRequest,
  type FieldopsService,
  type GetDispatchRequest,
  type ListActiveDispatchesRequest,
  type ListDispatchesRequest,
  type UpdateDispatchRequest,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";
import { EmergencyTypeSchema, type ServiceRequest } from "@voiceops/proto/voiceops/jobs/v1/jobs_service_pb";
import {
  dispatchStatusOf,
  dispatchStatusText,
  dispatchValuesOf,
  toDispatch,
  type DispatchRow,
  type DispatchStore,
  type DispatchValues,
} from "../store/dispatches.js";
import type { FieldopsStores } from "../store/index.js";
import type { PeerLookups } from "../peers.js";
import { fieldopsErrors } from "../errors.js";

const DISPATCH_FIELDS = ["status", "eta_at", "technician_id", "notes"] as const;

/** The forward order of a dispatch's statuses; cancelled stands apart. */
const FORWARD = ["pending", "assigned", "en_route", "on_site", "completed"];
const FINISHED = new Set(["completed", "cancelled"]);

/** The event of a dispatch's change: fieldops.dispatch.created, .updated or .cancelled. */
function dispatchEvent(orgId: string, row: DispatchRow, previous?: DispatchRow): DomainEvent {
  const dispatch = toDispatch(row);
  if (!previous)
    return newEvent(
      orgId,
      "fieldops.dispatch.created",
      DispatchCreatedSchema,
      create(DispatchCreatedSchema, { dispatch }),
    );
  const previousStatus = dispatchStatusOf(previous.status);
  if (row.status === "cancelled") {
    return newEvent(
      orgId,
      "fieldops.dispatch.cancelled",
      DispatchCancelledSchema,
      create(DispatchCancelledSchema, { dispatch, previousStatus }),
    );
  }
  return newEvent(
    orgId,
    "fieldops.dispatch.updated",
    DispatchUpdatedSchema,
    create(DispatchUpdatedSchema, { dispatch, previousStatus }),
  );
}

/** Cancels an active dispatch in the caller's transaction, with its event. */
export async function cancelDispatch(
  tx: Queryable,
  emit: (event: DomainEvent) => void,
  store: DispatchStore,
  orgId: string,
  row: DispatchRow,
  now: Date,
): Promise<DispatchRow> {
  const cancelled = await store.update(
    tx,
    orgId,
    row.id,
    { ...dispatchValuesOf(row), status: "cancelled", cancelled_at: now },
    now,
  );
  if (!cancelled) throw notFound("Dispatch");
  emit(dispatchEvent(orgId, cancelled, row));
  return cancelled;
}

/** The words a technician's skills are matched against: the request's category and emergency type. */
function skillsWanted(request: ServiceRequest): string[] {
  const wanted = [request.category?.trim()];
  if (request.emergencyType !== undefined)
    wanted.push(enumToJson(EmergencyTypeSchema, request.emergencyType) ?? undefined);
  return wanted.filter((word): word is string => Boolean(word));
}

export function dispatchHandlers(service: ServiceContext, stores: FieldopsStores, lookups: PeerLookups) {
  const { db, clock } = service;
  const { dispatches, technicians } = stores;

  /**
   * The best available technician for a request, locked for the transaction. Auto-picks of one
   * organization take turns (an advisory lock), so two emergencies never get the same person;
   * an explicit assignment racing one is seen after the technician's lock, and the next best is
   * tried.
   */
  async function autoPick(tx: Queryable, org: OrgContext, request: ServiceRequest, now: Date): Promise<string> {
    await tx.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [
      `fieldops.dispatch.autopick:${org.orgId}`,
    ]);
    const day = { start: endOfLocalDay(org.timezone, -1, now), end: endOfLocalDay(org.timezone, 0, now) };
    for (const id of await technicians.rankAvailable(tx, org.orgId, now, skillsWanted(request), day)) {
      if (!(await technicians.lock(tx, org.orgId, id))) continue;
      if ((await technicians.get(tx, org.orgId, id, now))?.available_now) return id;
    }
    throw fieldopsErrors.NO_TECHNICIAN_AVAILABLE();
  }

  return {
    async createDispatch(req: CreateDispatchRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const technicianId = req.technicianId?.toLowerCase();
      const [request, technician] = await Promise.all([
        lookups.serviceRequest(org, req.serviceRequestId),
        technicianId === undefined ? undefined : stores.providers.get(db, org.orgId, technicianId),
      ]);
      const violations: Violation[] = [];
      if (!request) violations.push(referenceNotFound("service_request_id", "service request", req.serviceRequestId));
      if (technicianId !== undefined && !technician)
        violations.push(referenceNotFound("technician_id", "technician", req.technicianId ?? technicianId));
      if (violations.length > 0 || !request) throw invalidArgument(violations);
      const row = await service.write(ctx, async (tx, emit) => {
        const now = clock.now();
        const active = await dispatches.activeIdsForRequest(tx, org.orgId, request.id);
        if (active.length > 0) throw fieldopsErrors.ACTIVE_DISPATCH_EXISTS(active[0]);
        let chosen: string;
        if (technicianId !== undefined) {
          const locked = await technicians.lock(tx, org.orgId, technicianId);
          if (!locked)
            throw invalidArgument([referenceNotFound("technician_id", "technician", req.technicianId ?? technicianId)]);
          chosen = locked.id;
        } else {
          chosen = await autoPick(tx, org, request, now);
        }
        const values: DispatchValues = {
          technician_id: chosen,
          status: "assigned",
          eta_at: req.etaAt ? timestampDate(req.etaAt) : null,
          notes: blankToNull(req.notes),
          completed_at: null,
          cancelled_at: null,
        };
        let inserted: DispatchRow;
        try {
          inserted = await dispatches.insert(tx, org.orgId, request.id, values, now);
        } catch (error) {
          if (pgErrorCode(error) === PgErrorCode.uniqueViolation) throw fieldopsErrors.ACTIVE_DISPATCH_EXISTS();
          throw error;
        }
        emit(dispatchEvent(org.orgId, inserted));
        return inserted;
      });
      return { dispatch: toDispatch(row) };
    },

    async listDispatches(req: ListDispatchesRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const rows = await dispatches.list(db, org.orgId, {
        status: req.status === undefined ? undefined : dispatchStatusText(req.status),
        serviceRequestId: req.serviceRequestId,
        technicianId: req.technicianId,
      });
      return { items: rows.map(toDispatch), total: rows.length };
    },

    async listActiveDispatches(_req: ListActiveDispatchesRequest, ctx: HandlerContext) {
      const rows = await dispatches.listActive(db, orgOf(ctx).orgId);
      return { items: rows.map(toDispatch), total: rows.length };
    },

    async getDispatch(req: GetDispatchRequest, ctx: HandlerContext) {
      const row = await dispatches.get(db, orgOf(ctx).orgId, req.dispatchId);
      if (!row) throw notFound("Dispatch");
      return { dispatch: toDispatch(row) };
    },

    async updateDispatch(req: UpdateDispatchRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const fields = updatedFields(DispatchFieldsSchema, req.dispatch, req.updateMask, DISPATCH_FIELDS);
      const input = req.dispatch ?? create(DispatchFieldsSchema);
      const row = await service.write(ctx, async (tx, emit) => {
        const current = await dispatches.get(tx, org.orgId, req.dispatchId, { forUpdate: true });
        if (!current) throw notFound("Dispatch");
        if (FINISHED.has(current.status)) throw fieldopsErrors.DISPATCH_FINISHED(current.status);
        if (fields.length === 0) return current;
        const now = clock.now();
        const next = dispatchValuesOf(current);
        if (fields.includes("technician_id") && input.technicianId !== undefined) {
          const locked = await technicians.lock(tx, org.orgId, input.technicianId);
          if (!locked)
            throw invalidArgument([referenceNotFound("dispatch.technician_id", "technician", input.technicianId)]);
          next.technician_id = locked.id;
        }
        if (fields.includes("eta_at")) next.eta_at = input.etaAt ? timestampDate(input.etaAt) : null;
        if (fields.includes("notes")) next.notes = blankToNull(input.notes);
        if (fields.includes("status") && input.status !== undefined) {
          const target = dispatchStatusText(input.status);
          const forward = FORWARD.indexOf(target) > FORWARD.indexOf(current.status);
          if (target !== current.status && target !== "cancelled" && !forward) {
            throw fieldopsErrors.DISPATCH_TRANSITION(current.status, target);
          }
          next.status = target;
        }
        if (next.status === "pending" && next.technician_id !== null) next.status = "assigned";
        if (next.technician_id === null && next.status !== "pending" && next.status !== "cancelled") {
          throw fieldopsErrors.DISPATCH_NEEDS_TECHNICIAN(next.status);
        }
        if (next.status === "completed") next.completed_at = now;
        if (next.status === "cancelled") next.cancelled_at = now;
        const updated = await dispatches.update(tx, org.orgId, current.id, next, now);
        if (!updated) throw notFound("Dispatch");
        emit(dispatchEvent(org.orgId, updated, current));
        return updated;
      });
      return { dispatch: toDispatch(row) };
    },

    async cancelDispatch(req: CancelDispatchRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      await service.write(ctx, async (tx, emit) => {
        const current = await dispatches.get(tx, org.orgId, req.dispatchId, { forUpdate: true });
        if (!current) throw notFound("Dispatch");
        // Cancelling a cancelled dispatch again succeeds; a completed one cannot be cancelled.
        if (current.status === "cancelled") return;
        if (current.status === "completed") throw fieldopsErrors.DISPATCH_FINISHED(current.status);
        await cancelDispatch(tx, emit, dispatches, org.orgId, current, clock.now());
      });
      return {};
    },
  } satisfies Partial<ServiceImpl<typeof FieldopsService>>;
}
