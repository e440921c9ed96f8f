import { fileURLToPath } from "node:url";
import { SERVICE_PORTS, type ServiceModule } from "@voiceops/platform";
import { JobsService } from "@voiceops/proto/voiceops/jobs/v1/jobs_service_pb";
import { listingHandlers } from "./handlers/listings.js";

/** The jobs service: service requests with their quotes and emergencies, and service listings. */
export const jobsService: ServiceModule = {
  name: "jobs",
  schema: "jobs",
  migrationsDir: fileURLToPath(new URL("../migrations", import.meta.url)),
  defaultPort: SERVICE_PORTS.jobs,
  routes(context) {
    return (router) => {
      router.service(JobsService, {
        ...listingHandlers(context),
      });
    };
  },
};
