import { fileURLToPath } from "node:url";
import { SERVICE_PORTS, type ServiceModule } from "@voiceops/platform";

/** The analytics service: statistics built from the other services' events. It boots and answers its health RPC; its API routes are not built yet. */
export const analyticsService: ServiceModule = {
  name: "analytics",
  schema: "analytics",
  migrationsDir: fileURLToPath(new URL("../migrations", import.meta.url)),
  defaultPort: SERVICE_PORTS.analytics,
  routes: () => () => undefined,
};
