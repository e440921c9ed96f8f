import { fileURLToPath } from "node:url";
import type { ServiceImpl } from "@connectrpc/connect";
import type { ServiceModule } from "@voiceops/platform";
import { AnalyticsService } from "@voiceops/proto/voiceops/analytics/v1/analytics_service_pb";
import { commsConsumer } from "./consumers/comms.js";
import { crmConsumer } from "./consumers/crm.js";
import { fieldopsConsumer } from "./consumers/fieldops.js";
import { jobsConsumer } from "./consumers/jobs.js";
import { runConsumers } from "./consumers/runner.js";
import { statisticsHandlers } from "./handlers/statistics.js";

/**
 * The analytics service: the statistics routes, answered from read models it keeps itself by
 * consuming the other services' events (it never reads their schemas).
 */
export const analyticsService: ServiceModule = {
  name: "analytics",
  schema: "analytics",
  migrationsDir: fileURLToPath(new URL("../migrations", import.meta.url)),
  routes(context) {
    // Every RPC of the service: a forgotten handler is a compile error.
    const handlers: ServiceImpl<typeof AnalyticsService> = statisticsHandlers(context);
    return (router) => {
      router.service(AnalyticsService, handlers);
    };
  },
  // Consumers run in the read models' generation, so that a rebuild can replay the streams.
  background: (context) => runConsumers(context, [crmConsumer, jobsConsumer, fieldopsConsumer, commsConsumer]),
};
