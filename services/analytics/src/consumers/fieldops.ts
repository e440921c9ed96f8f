import { timestampDate } from "@bufbuild/protobuf/wkt";
import { handlerOf, type Queryable, type StreamConsumer } from "@voiceops/platform";
import { ServiceProviderCreatedSchema, ServiceProviderDeletedSchema, ServiceProviderUpdatedSchema } from "@voiceops/proto/voiceops/fieldops/v1/fieldops_events_pb";
import type { ServiceProvider } from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";
import { applyRecord } from "../model/records.js";

async function applyTechnician(tx: Queryable, orgId: string, provider: ServiceProvider): Promise<void> {
  await applyRecord(tx, orgId, "technician", provider.id, {
    counters: [],
    attrs: { on_call: provider.isOnCall, name: provider.name },
    version: provider.updatedAt ? timestampDate(provider.updatedAt) : undefined,
  });
}

/** Technicians (service providers) and their on-call flag, as field ops published them. */
export const fieldopsConsumer: StreamConsumer = {
  durable: "analytics-fieldops",
  subject: "fieldops.>",
  handlers: {
    "fieldops.provider.created": handlerOf(ServiceProviderCreatedSchema, async (event, tx) => {
      if (event.payload.provider) await applyTechnician(tx, event.orgId, event.payload.provider);
    }),
    "fieldops.provider.updated": handlerOf(ServiceProviderUpdatedSchema, async (event, tx) => {
      if (event.payload.provider) await applyTechnician(tx, event.orgId, event.payload.provider);
    }),
    "fieldops.provider.deleted": handlerOf(ServiceProviderDeletedSchema, async (event, tx) => {
      const id = event.payload.providerId.toLowerCase();
      await applyRecord(tx, event.orgId, "technician", id, null);
      await tx.query(`DELETE FROM analytics.upcoming WHERE org_id = $1 AND technician_id = $2`, [event.orgId, id]);
    }),
  },
};
