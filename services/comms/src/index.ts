import { fileURLToPath } from "node:url";
import { SERVICE_PORTS, type ServiceModule } from "@voiceops/platform";

/** The comms service: conversations, messages, caller memory, activities and calls. It boots and answers its health RPC; its API routes are not built yet. */
export const commsService: ServiceModule = {
  name: "comms",
  schema: "comms",
  migrationsDir: fileURLToPath(new URL("../migrations", import.meta.url)),
  defaultPort: SERVICE_PORTS.comms,
  routes: () => () => undefined,
};
