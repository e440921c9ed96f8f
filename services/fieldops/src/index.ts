import { fileURLToPath } from "node:url";
import { SERVICE_PORTS, type ServiceModule } from "@voiceops/platform";

/** The fieldops service: service providers and technicians, on-call schedules, dispatch, urgent alerts and scheduling. It boots and answers its health RPC; its API routes are not built yet. */
export const fieldopsService: ServiceModule = {
  name: "fieldops",
  schema: "fieldops",
  migrationsDir: fileURLToPath(new URL("../migrations", import.meta.url)),
  defaultPort: SERVICE_PORTS.fieldops,
  routes: () => () => undefined,
};
