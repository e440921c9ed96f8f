import { onShutdown } from "@voiceops/platform";
import { startSystem } from "./system.js";

// `npm start`: the whole system in one process. With DATABASE_URL and NATS_URL unset it keeps
// its data in an embedded PostgreSQL under DATA_DIR and passes events in process.
const system = await startSystem();
system.logger.info(
  { url: system.url, admin: system.adminUrl, storage: system.db.kind, bus: system.bus.kind },
  `ready: REST API on ${system.url}, admin API on ${system.adminUrl}; create a key with npm run apikey -- --org "<name>"`,
);
onShutdown(system.logger, () => system.stop());
