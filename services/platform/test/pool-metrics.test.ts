import { describe, expect, it } from "vitest";
import { createLogger, openDatabase, readInfraConfig, registry } from "../src/index.js";
import { testEnv } from "../src/testing/index.js";

// The PostgreSQL pool's gauges (metrics.ts): queries waiting for a connection show while they wait.

describe.runIf(process.env.DATABASE_URL)("PostgreSQL pool gauges", () => {
  it("report the connections and the queries waiting for one, until the pool closes", async () => {
    const db = await openDatabase(readInfraConfig(testEnv()), {
      name: "pool-metrics-test",
      poolSize: 1,
      logger: createLogger("silent"),
    });
    const sample = async (metric: string) => {
      const values = (await registry.getSingleMetric(metric)?.get())?.values ?? [];
      return values.find((v) => String(v.labels.pool).startsWith("pool-metrics-test"))?.value;
    };
    try {
      let release: () => void = () => undefined;
      let began: () => void = () => undefined;
      const begun = new Promise<void>((resolve) => (began = resolve));
      const held = db.transaction(
        () =>
          new Promise<void>((resolve) => {
            release = resolve;
            began();
          }),
      );
      await begun;
      // The one connection is held: these two wait for it.
      const waiting = [db.query("SELECT 1"), db.query("SELECT 2")];
      await expect.poll(() => sample("db_pool_waiting"), { timeout: 60_000 }).toBe(2);
      expect(await sample("db_pool_connections")).toBe(1);
      release();
      await Promise.all([held, ...waiting]);
      expect(await sample("db_pool_waiting")).toBe(0);
    } finally {
      await db.close();
    }
    expect(await sample("db_pool_waiting")).toBeUndefined();
  }, 180_000);
});
