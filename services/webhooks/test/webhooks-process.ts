import { freePort, type RunningProcess, runEntry, waitForStatus } from "@voiceops/platform/testing";

// The webhooks service as a process of its own beside an in-process system: for the fault tests
// and the delivery benchmark (no test runner needed here).

/** The webhooks service as a process of its own (distributed mode), ready to deliver. */
export async function startWebhooksProcess(env: Record<string, string | undefined>): Promise<RunningProcess> {
  const [grpcPort, opsPort] = await Promise.all([freePort(), freePort()]);
  const running = runEntry("services/webhooks/src/main.ts", {
    ...env,
    GRPC_HOST: "127.0.0.1",
    GRPC_PORT: String(grpcPort),
    OPS_PORT: String(opsPort),
    LOG_LEVEL: "warn",
  });
  try {
    await waitForStatus(`http://127.0.0.1:${opsPort}/health/ready`, 200, 90_000, running);
  } catch (error) {
    await running.stop("SIGKILL");
    throw new Error("the webhooks process did not become ready", { cause: error });
  }
  return running;
}
