import { fileURLToPath } from "node:url";
import { SERVICE_PORTS, type ServiceModule } from "@voiceops/platform";

/** The jobs service: service requests, quotes, emergencies and service listings. It boots and answers its health RPC; its API routes are not built yet. */
export const jobsService: ServiceModule = {
  name: "jobs",
  schema: "jobs",
  migrationsDir: fileURLToPath(new URL("../migrations", import.meta.url)),
  defaultPort: SERVICE_PORTS.jobs,
  routes: () => () => undefined,
};
