import { afterAll, describe, expect, inject, it } from "vitest";
import { CommsService } from "@voiceops/proto/voiceops/comms/v1/comms_service_pb";
import { AdminClient, grpc, newTenant, orgMetadata, plainGrpcClient } from "@voiceops/platform/testing";

// The comms service called directly with a plain @grpc/grpc-js client, as the voice runtime or
// an automation inside the cluster would: the same rules as over REST.

const client = plainGrpcClient(inject("serviceUrls").comms ?? "");
const token = inject("internalToken");
const internalApiKey = inject("internalApiKey");
const admin = new AdminClient(inject("adminUrl"), inject("adminToken"));
const { createActivity, listCalls, putCallRecording } = CommsService.method;

describe("comms over plain gRPC", () => {
  afterAll(() => client.close());

  it("records a back-dated call with the internal key in its field, which REST then lists", async () => {
    const tenant = await newTenant(inject("baseUrl"), admin);
    const meta = orgMetadata(tenant.orgId, token);
    const when = new Date("2026-02-03T04:05:06Z");
    const created = await client.call(
      createActivity,
      {
        activityType: 2,
        sessionId: "grpc-1",
        metadata: { duration_seconds: 42, channel: "web" },
        occurredAt: { seconds: BigInt(when.getTime() / 1000), nanos: 0 },
        internalKey: internalApiKey,
      },
      meta,
    );
    expect(created.activity).toMatchObject({
      sessionId: "grpc-1",
      source: 2,
      metadata: { duration_seconds: 42, channel: "web" },
    });
    const calls = await client.call(listCalls, {}, meta);
    expect(calls).toMatchObject({ total: 1, page: 1, pageSize: 25 });
    const rest = await tenant.owner.get("/api/calls");
    expect(rest.body.items).toEqual([
      expect.objectContaining({
        session_id: "grpc-1",
        channel: "web",
        duration_seconds: 42,
        occurred_at: "2026-02-03T04:05:06.000Z",
      }),
    ]);
  });

  it("refuses a wrong internal key, and a recording key outside the organization's uploads", async () => {
    const tenant = await newTenant(inject("baseUrl"), admin);
    const meta = orgMetadata(tenant.orgId, token);
    await expect(client.call(createActivity, { activityType: 16, internalKey: "wrong" }, meta)).rejects.toMatchObject({
      code: grpc.status.UNAUTHENTICATED,
    });
    await client.call(createActivity, { activityType: 2, sessionId: "grpc-2" }, meta);
    for (const objectKey of [
      "uploads/00000000-0000-4000-8000-000000000000/x",
      `uploads/${tenant.orgId}/../other`,
      "calls/x",
    ]) {
      await expect(
        client.call(
          putCallRecording,
          { sessionId: "grpc-2", audio: { objectKey, contentType: "audio/wav", filename: "", bytes: 4n } },
          meta,
        ),
      ).rejects.toMatchObject({
        code: grpc.status.INVALID_ARGUMENT,
      });
    }
  });
});
