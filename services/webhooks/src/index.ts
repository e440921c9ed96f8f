import { fileURLToPath } from "node:url";
import type { ServiceImpl } from "@connectrpc/connect";
import { envFlag, envInt, type ServiceContext, type ServiceModule } from "@voiceops/platform";
import { WebhooksService } from "@voiceops/proto/voiceops/webhooks/v1/webhooks_service_pb";
import { webhookConsumers } from "./consumers.js";
import { retrySchedule } from "./delivery/schedule.js";
import { DeliveryWorker } from "./delivery/worker.js";
import { pruneDeliveriesPeriodically } from "./delivery/retention.js";
import { deliveryHandlers } from "./handlers/deliveries.js";
import { endpointHandlers } from "./handlers/endpoints.js";
import { webhookStores } from "./store/index.js";

const stores = webhookStores();
/** The delivery worker of each running instance of the service (a test may run several in one process). */
const workers = new WeakMap<ServiceContext, DeliveryWorker>();

function workerOf(context: ServiceContext): DeliveryWorker {
  let worker = workers.get(context);
  if (!worker) {
    const env = context.env;
    worker = new DeliveryWorker(context, stores.deliveries, {
      concurrency: envInt("WEBHOOK_CONCURRENCY", 256, { min: 1, max: 1024 }, env),
      perEndpoint: envInt("WEBHOOK_ENDPOINT_CONCURRENCY", 16, { min: 1, max: 64 }, env),
      schedule: retrySchedule(env),
      allowPrivate: envFlag("WEBHOOK_ALLOW_PRIVATE_URLS", env),
      pollMs: context.db.kind === "pglite" ? 250 : 100,
    });
    workers.set(context, worker);
  }
  return worker;
}

/**
 * New deliveries may be due. A nudge from inside the recording transaction may run before it
 * commits; the worker's poll finds what such a nudge missed.
 */
function nudgeSoon(context: ServiceContext): () => void {
  return () => setTimeout(() => workerOf(context).nudge(), 5).unref();
}

/** The webhooks service: endpoints, every service's events delivered to them, the delivery log. */
export const webhooksService: ServiceModule = {
  name: "webhooks",
  schema: "webhooks",
  migrationsDir: fileURLToPath(new URL("../migrations", import.meta.url)),
  routes(context) {
    const allowPrivate = envFlag("WEBHOOK_ALLOW_PRIVATE_URLS", context.env);
    workerOf(context);
    const impl: ServiceImpl<typeof WebhooksService> = {
      ...endpointHandlers(context, stores, allowPrivate),
      ...deliveryHandlers(context, stores, nudgeSoon(context)),
    };
    return (router) => router.service(WebhooksService, impl);
  },
  consumers: (context) => webhookConsumers(stores.deliveries, () => context.clock.now(), nudgeSoon(context)),
  background: async (context) => {
    const worker = workerOf(context).start();
    const pruning = pruneDeliveriesPeriodically(
      context.db,
      stores.deliveries,
      envInt("WEBHOOK_RETENTION_DAYS", 30, { min: 1, max: 3650 }, context.env),
      context.logger,
      () => context.clock.now(),
    );
    return {
      async stop() {
        await worker.stop();
        await pruning.stop();
      },
    };
  },
};
