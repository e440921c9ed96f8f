import { fileURLToPath } from "node:url";
import { SERVICE_PORTS, type ServiceModule } from "@voiceops/platform";
import { JobsService } from "@voiceops/proto/voiceops/jobs/v1/jobs_service_pb";
import { jobsConsumers } from "./consumers.js";
import { listingHandlers } from "./handlers/listings.js";
import { quoteHandlers } from "./handlers/quotes.js";
import { referenceChecker } from "./handlers/references.js";
import { requestHandlers } from "./handlers/requests.js";
import { RequestStore } from "./store/requests.js";

const requests = new RequestStore();

/** The jobs service: service requests with their quotes and emergencies, and service listings. */
export const jobsService: ServiceModule = {
  name: "jobs",
  schema: "jobs",
  migrationsDir: fileURLToPath(new URL("../migrations", import.meta.url)),
  defaultPort: SERVICE_PORTS.jobs,
  routes(context) {
    return (router) => {
      router.service(JobsService, {
        ...requestHandlers(context, requests, referenceChecker(context)),
        ...quoteHandlers(context, requests),
        ...listingHandlers(context),
      });
    };
  },
  consumers: () => jobsConsumers(requests),
};
