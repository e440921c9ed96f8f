import { createClient } from "@connectrpc/connect";
import type { Router } from "express";
import { HealthService } from "@voiceops/proto/voiceops/health/v1/health_service_pb";
import { databaseState, type Database, type EventBus, type PeerRegistry } from "@voiceops/platform";

export const API_VERSION = "1.0.0";

async function serviceState(peers: PeerRegistry, name: string): Promise<string> {
  try {
    const client = createClient(HealthService, peers.transport(name));
    const answer = await client.check({}, { timeoutMs: 2_000 });
    return answer.status === "ok" ? "ok" : "degraded";
  } catch {
    return "down";
  }
}

/**
 * /health and /api/health report every dependency (503 when one is not ok);
 * /health/live and /api/health/live answer 200 while the process runs;
 * /health/ready is the replica's readiness for Kubernetes.
 */
export function mountHealth(
  router: Router,
  deps: { db: Database; bus: EventBus; peers: PeerRegistry; services: string[]; draining?: () => boolean },
): void {
  const live = (_req: unknown, res: { json(body: unknown): void }) => res.json({ status: "ok" });
  router.get(["/health/live", "/api/health/live"], live);
  // Readiness of this gateway replica: its own database and bus, not the services behind it,
  // so one service being down does not take every gateway out of its load balancer.
  router.get("/health/ready", async (_req, res, next) => {
    try {
      // A draining replica leaves its load balancer at once, whatever its dependencies say.
      if (deps.draining?.()) return void res.status(503).json({ status: "draining" });
      const dependencies = { database: await databaseState(deps.db), bus: deps.bus.healthy() ? "ok" : "down" };
      const ok = dependencies.database === "ok" && dependencies.bus === "ok";
      res.status(ok ? 200 : 503).json({ status: ok ? "ok" : "unavailable", dependencies });
    } catch (error) {
      next(error);
    }
  });
  router.get(["/health", "/api/health"], async (_req, res, next) => {
    try {
      const names = deps.services;
      const [database, ...states] = await Promise.all([
        databaseState(deps.db),
        ...names.map((name) => serviceState(deps.peers, name)),
      ]);
      const dependencies: Record<string, string> = {
        database: database ?? "down",
        bus: deps.bus.healthy() ? "ok" : "down",
      };
      names.forEach((name, index) => {
        dependencies[name] = states[index] ?? "down";
      });
      const ok = Object.values(dependencies).every((state) => state === "ok");
      res.status(ok ? 200 : 503).json({ status: ok ? "ok" : "degraded", version: API_VERSION, dependencies });
    } catch (error) {
      next(error);
    }
  });
}
