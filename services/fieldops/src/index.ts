import { fileURLToPath } from "node:url";
import { SERVICE_PORTS, type ServiceModule } from "@voiceops/platform";
import { FieldopsService } from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";

/** The field-operations service: service providers (technicians), and later on-call and dispatch. */
export const fieldopsService: ServiceModule = {
  name: "fieldops",
  schema: "fieldops",
  migrationsDir: fileURLToPath(new URL("../migrations", import.meta.url)),
  defaultPort: SERVICE_PORTS.fieldops,
  routes() {
    return (router) => {
      router.service(FieldopsService, {});
    };
  },
};
