import { onShutdown, runMain, shutdownDelayMs } from "@voiceops/platform";
import { startSystem } from "./system.js";

// `npm start`: the whole system in one process. With DATABASE_URL and NATS_URL unset it keeps
// its data in an embedded PostgreSQL under DATA_DIR and passes events in process. SIGTERM or
// SIGINT (Ctrl-C) to the pid it prints stops it gracefully.
await runMain(async () => {
  const env = process.env;
  const delayMs = shutdownDelayMs(env);
  const system = await startSystem({ env });
  system.logger.info(
    { url: system.url, admin: system.adminUrl, storage: system.db.kind, bus: system.bus.kind },
    `ready (pid ${process.pid}): REST API on ${system.url}, admin API on ${system.adminUrl}; create a key with npm run apikey -- --org "<name>"`,
  );
  onShutdown(system.logger, { drain: () => system.drain(), stop: () => system.stop() }, { delayMs });
  // Started by npm (which forwards SIGINT and SIGTERM): if npm itself is killed outright, stop
  // too rather than linger on the ports as an orphan.
  if (env.npm_lifecycle_event) {
    const parent = process.ppid;
    setInterval(() => {
      if (process.ppid !== parent) process.kill(process.pid, "SIGTERM");
    }, 1_000).unref();
  }
});
