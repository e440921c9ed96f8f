import { fileURLToPath } from "node:url";
import type { ServiceImpl } from "@connectrpc/connect";
import { envInt, runPeriodically, type ServiceModule } from "@voiceops/platform";
import { CrmService } from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";
import { PortalService } from "@voiceops/proto/voiceops/crm/v1/portal_service_pb";
import { contactUpsertHandlers } from "./handlers/contact-upsert.js";
import { contactHandlers } from "./handlers/contacts.js";
import { leadHandlers } from "./handlers/leads.js";
import { portalResolveHandlers, portalTokenHandlers } from "./handlers/portal-tokens.js";
import { crmStores } from "./store/index.js";

/** The CRM service: contacts, leads and the lead pipeline. */
export const crmService: ServiceModule = {
  name: "crm",
  schema: "crm",
  migrationsDir: fileURLToPath(new URL("../migrations", import.meta.url)),
  routes(context) {
    const stores = crmStores();
    const pipelineDays = envInt("PIPELINE_DAYS", 30, { min: 1, max: 3650 }, context.env);
    const portalTokenDays = envInt("PORTAL_TOKEN_DAYS", 30, { min: 1, max: 365 }, context.env);
    // Every RPC of the service, or it does not compile.
    const impl: ServiceImpl<typeof CrmService> = {
      ...contactHandlers(context, stores),
      ...contactUpsertHandlers(context, stores),
      ...leadHandlers(context, stores, pipelineDays),
      ...portalTokenHandlers(context, stores, portalTokenDays),
    };
    return (router) => router.service(CrmService, impl).service(PortalService, portalResolveHandlers(context, stores));
  },
  // Writes append their changes to the contact counts beside them (no row every writer of an
  // organization locks); this folds those changes into the counts.
  background: async (context) =>
    runPeriodically(
      "fold contact counts",
      2_000,
      () => context.db.query("SELECT crm.fold_contact_count_changes()"),
      context.logger,
    ),
  // Every contact write leaves a row here that the fold deletes two seconds later.
  churnTables: ["crm.contact_count_changes"],
};
