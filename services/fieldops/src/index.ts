import { fileURLToPath } from "node:url";
import type { ServiceImpl } from "@connectrpc/connect";
import { envInt, type ServiceModule } from "@voiceops/platform";
import { FieldopsService } from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";
import { fieldopsConsumers } from "./consumers.js";
import { alertHandlers } from "./handlers/alerts.js";
import { appointmentTypeHandlers } from "./handlers/appointment-types.js";
import { appointmentHandlers } from "./handlers/appointments.js";
import { dispatchHandlers } from "./handlers/dispatches.js";
import { providerHandlers } from "./handlers/providers.js";
import { peerLookups } from "./peers.js";
import { scheduleHandlers } from "./handlers/schedules.js";
import { slotHoldHandlers } from "./handlers/slot-holds.js";
import { technicianHandlers } from "./handlers/technicians.js";
import { fieldopsStores } from "./store/index.js";

const stores = fieldopsStores();

/**
 * The field-operations service: service providers, who are the technicians of the on-call
 * schedule and of emergency dispatch, urgent alerts, and scheduling (appointment types,
 * availability, bookings).
 */
export const fieldopsService: ServiceModule = {
  name: "fieldops",
  schema: "fieldops",
  migrationsDir: fileURLToPath(new URL("../migrations", import.meta.url)),
  routes(context) {
    const lookups = peerLookups(context);
    const holdSeconds = envInt("SLOT_HOLD_SECONDS", 300, { min: 1, max: 86_400 }, context.env);
    // Every RPC of the service, or it does not compile.
    const impl: ServiceImpl<typeof FieldopsService> = {
      ...providerHandlers(context, stores),
      ...technicianHandlers(context, stores),
      ...scheduleHandlers(context, stores),
      ...dispatchHandlers(context, stores, lookups),
      ...alertHandlers(context, stores, lookups),
      ...appointmentTypeHandlers(context, stores),
      ...appointmentHandlers(context, stores, lookups),
      ...slotHoldHandlers(context, stores, holdSeconds),
    };
    return (router) => router.service(FieldopsService, impl);
  },
  consumers: (context) => fieldopsConsumers(context, stores),
};
