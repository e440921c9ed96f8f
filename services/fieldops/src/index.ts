import { fileURLToPath } from "node:url";
import { SERVICE_PORTS, type ServiceModule } from "@voiceops/platform";
import { FieldopsService } from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";
import { providerHandlers } from "./handlers/providers.js";
import { ServiceProviderStore } from "./store/providers.js";

/** The field-operations service: service providers (technicians), and later on-call and dispatch. */
export const fieldopsService: ServiceModule = {
  name: "fieldops",
  schema: "fieldops",
  migrationsDir: fileURLToPath(new URL("../migrations", import.meta.url)),
  defaultPort: SERVICE_PORTS.fieldops,
  routes(context) {
    const providers = new ServiceProviderStore();
    return (router) => {
      router.service(FieldopsService, {
        ...providerHandlers(context, providers),
      });
    };
  },
};
