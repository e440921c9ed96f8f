import { defineConfig } from "vitest/config";

// One run covers every package. The global setup starts the whole system once (embedded, or
// against DATABASE_URL and NATS_URL when they are set) and the HTTP tests talk to it.
export default defineConfig({
  test: {
    include: ["services/*/test/**/*.test.ts", "gateway/test/**/*.test.ts", "deploy/test/**/*.test.ts"],
    globalSetup: ["gateway/test/global-setup.ts"],
    // Generous bounds: a loaded 2-core machine is slow, and no test may fail on speed alone.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    pool: "forks",
    reporters: ["default"],
  },
});
