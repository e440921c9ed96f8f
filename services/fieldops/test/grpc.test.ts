import { afterAll, describe, expect, inject, it } from "vitest";
import { DispatchStatus, FieldopsService } from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";
import { AdminClient, grpc, newTenant, orgMetadata, plainGrpcClient } from "@voiceops/platform/testing";

// The fieldops service called directly with a plain @grpc/grpc-js client, as an automation inside
// the cluster would: it checks the service request with the jobs service over gRPC itself.

const client = plainGrpcClient(inject("serviceUrls").fieldops ?? "");
const token = inject("internalToken");
const admin = new AdminClient(inject("adminUrl"), inject("adminToken"));
const { createTechnician, createDispatch, listActiveDispatches, createOnCallSchedule } = FieldopsService.method;

describe("fieldops over plain gRPC", () => {
  afterAll(() => client.close());

  it("dispatches the on-call technician to a request, which REST then shows", async () => {
    const tenant = await newTenant(inject("baseUrl"), admin);
    const request = await tenant.owner.post("/api/service-requests", { description: "No heat", category: "hvac" });
    const meta = orgMetadata(tenant.orgId, token);
    const technician = await client.call(
      createTechnician,
      { name: "Grpc Tech", skills: ["hvac"], isOnCall: true },
      meta,
    );
    expect(technician.technician).toMatchObject({ name: "Grpc Tech", onCallNow: true, availableNow: true });
    const created = await client.call(createDispatch, { serviceRequestId: request.body.id }, meta);
    expect(created.dispatch).toMatchObject({
      serviceRequestId: request.body.id,
      technicianId: technician.technician?.id,
      status: DispatchStatus.ASSIGNED,
    });
    expect((await client.call(listActiveDispatches, {}, meta)).total).toBe(1);
    const rest = await tenant.owner.get(`/api/technicians/dispatch/${created.dispatch?.id}`);
    expect(rest.body).toMatchObject({ status: "assigned", technician: { name: "Grpc Tech" } });
  });

  it("answers INVALID_ARGUMENT for another organization's request and for a request the rules refuse", async () => {
    const [mine, theirs] = await Promise.all([
      newTenant(inject("baseUrl"), admin),
      newTenant(inject("baseUrl"), admin),
    ]);
    const foreign = await theirs.owner.post("/api/service-requests", { description: "Not yours" });
    await expect(
      client.call(createDispatch, { serviceRequestId: foreign.body.id }, orgMetadata(mine.orgId, token)),
    ).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
    await expect(
      client.call(createOnCallSchedule, { technicianId: "not-a-uuid" }, orgMetadata(mine.orgId, token)),
    ).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
  });
});
