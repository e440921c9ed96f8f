import { fileURLToPath } from "node:url";
import { envInt, SERVICE_PORTS, type ServiceModule } from "@voiceops/platform";
import { CrmService } from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";
import { contactHandlers } from "./handlers/contacts.js";
import { leadHandlers } from "./handlers/leads.js";
import { ContactStore } from "./store/contacts.js";
import { LeadStore } from "./store/leads.js";

/** The CRM service: contacts, leads and the lead pipeline. */
export const crmService: ServiceModule = {
  name: "crm",
  schema: "crm",
  migrationsDir: fileURLToPath(new URL("../migrations", import.meta.url)),
  defaultPort: SERVICE_PORTS.crm,
  routes(context) {
    const contacts = new ContactStore();
    const leads = new LeadStore();
    const pipelineDays = envInt("PIPELINE_DAYS", 30, { min: 1, max: 3650 });
    return (router) => {
      router.service(CrmService, {
        ...contactHandlers(context, contacts),
        ...leadHandlers(context, leads, contacts, pipelineDays),
      });
    };
  },
};
