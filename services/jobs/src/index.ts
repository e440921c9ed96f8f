import { fileURLToPath } from "node:url";
import type { ServiceImpl } from "@connectrpc/connect";
import type { ServiceModule } from "@voiceops/platform";
import { JobsService } from "@voiceops/proto/voiceops/jobs/v1/jobs_service_pb";
import { jobsConsumers } from "./consumers.js";
import { listingHandlers } from "./handlers/listings.js";
import { quoteHandlers } from "./handlers/quotes.js";
import { referenceChecker } from "./peers.js";
import { requestHandlers } from "./handlers/requests.js";
import { jobsStores } from "./store/index.js";

const stores = jobsStores();

/** The jobs service: service requests with their quotes and emergencies, and service listings. */
export const jobsService: ServiceModule = {
  name: "jobs",
  schema: "jobs",
  migrationsDir: fileURLToPath(new URL("../migrations", import.meta.url)),
  routes(context) {
    // Every RPC of the service, or it does not compile.
    const impl: ServiceImpl<typeof JobsService> = {
      ...requestHandlers(context, stores, referenceChecker(context)),
      ...quoteHandlers(context, stores),
      ...listingHandlers(context, stores),
    };
    return (router) => router.service(JobsService, impl);
  },
  consumers: () => jobsConsumers(stores),
};
