import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { orgOf, type OrgContext, type Queryable, type ServiceContext, notFound } from "@voiceops/platform";
import {
  CreateTechnicianRequestSchema,
  type CreateTechnicianRequest,
  type DeleteTechnicianRequest,
  type FieldopsService,
  type GetTechnicianRequest,
  type ListCurrentOnCallRequest,
  type ListTechniciansRequest,
  type UpdateTechnicianRequest,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";
import type { FieldopsStores } from "../store/index.js";
import { toOnCallTechnician, toTechnician, type TechnicianRow } from "../store/technicians.js";
import { insertProvider, removeProvider, updateProvider } from "../providers/writes.js";

/** Technicians are service providers: the same rows, shown with who is on call and available now. */
export function technicianHandlers(service: ServiceContext, stores: FieldopsStores) {
  const { db, clock } = service;
  const { technicians } = stores;

  /** The technician as stored by the transaction that just wrote it. */
  async function reread(tx: Queryable, org: OrgContext, id: string): Promise<TechnicianRow> {
    const row = await technicians.get(tx, org.orgId, id, clock.now());
    if (!row) throw notFound("Technician");
    return row;
  }

  return {
    async listTechnicians(req: ListTechniciansRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const rows = await technicians.list(db, org.orgId, clock.now(), {
        skill: req.skill?.trim() || undefined,
        onCallNow: req.isOnCall,
        availableNow: req.availableNow,
      });
      return { items: rows.map(toTechnician), total: rows.length };
    },

    async createTechnician(req: CreateTechnicianRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const row = await service.write(ctx, async (tx, emit) =>
        reread(tx, org, (await insertProvider(tx, emit, stores.providers, org, CreateTechnicianRequestSchema, req)).id),
      );
      return { technician: toTechnician(row) };
    },

    async getTechnician(req: GetTechnicianRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const row = await technicians.get(db, org.orgId, req.technicianId, clock.now());
      if (!row) throw notFound("Technician");
      return { technician: toTechnician(row) };
    },

    async updateTechnician(req: UpdateTechnicianRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const row = await service.write(ctx, async (tx, emit) => {
        const updated = await updateProvider(tx, emit, stores.providers, org, {
          id: req.technicianId,
          fields: req.technician,
          mask: req.updateMask,
          message: "technician",
          entity: "Technician",
        });
        return reread(tx, org, updated.id);
      });
      return { technician: toTechnician(row) };
    },

    async deleteTechnician(req: DeleteTechnicianRequest, ctx: HandlerContext) {
      const id = await removeProvider(ctx, service, stores, orgOf(ctx), req.technicianId, "Technician");
      return { id, deleted: true };
    },

    async listCurrentOnCall(_req: ListCurrentOnCallRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const rows = await technicians.list(db, org.orgId, clock.now(), { onCallNow: true });
      return { items: rows.map(toOnCallTechnician), total: rows.length };
    },
  } satisfies Partial<ServiceImpl<typeof FieldopsService>>;
}
