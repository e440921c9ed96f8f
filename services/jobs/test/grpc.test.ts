import { afterAll, describe, expect, inject, it } from "vitest";
import { JobsService } from "@voiceops/proto/voiceops/jobs/v1/jobs_service_pb";
import { AdminClient, grpc, newTenant, orgMetadata, plainGrpcClient } from "@voiceops/platform/testing";

// The jobs service called directly with a plain @grpc/grpc-js client, as an automation inside
// the cluster would; it checks the contact with the CRM service over gRPC itself.

const client = plainGrpcClient(inject("serviceUrls").jobs ?? "");
const token = inject("internalToken");
const admin = new AdminClient(inject("adminUrl"), inject("adminToken"));
const { createServiceRequest, getServiceRequestStats, listServiceRequests } = JobsService.method;

describe("jobs over plain gRPC", () => {
  afterAll(() => client.close());

  it("creates a request linked to a contact, which REST then lists", async () => {
    const tenant = await newTenant(inject("baseUrl"), admin);
    const contact = await tenant.owner.post("/api/contacts", { name: "Grpc Jobs Customer" });
    const meta = orgMetadata(tenant.orgId, token, { timezone: "America/Chicago" });
    const created = await client.call(
      createServiceRequest,
      { description: "From an automation", contactId: contact.body.id },
      meta,
    );
    expect(created.serviceRequest).toMatchObject({
      description: "From an automation",
      contactId: contact.body.id,
      priority: 2,
      status: 1,
    });
    const listed = await client.call(listServiceRequests, {}, meta);
    expect(listed).toMatchObject({ total: 1, page: 1, pageSize: 10 });
    const stats = await client.call(getServiceRequestStats, {}, meta);
    expect(stats.openTotal).toBe(1);
    const rest = await tenant.owner.get("/api/service-requests");
    expect(rest.body.items.map((r: { id: string }) => r.id)).toEqual([created.serviceRequest?.id]);
  });

  it("answers INVALID_ARGUMENT for another organization's contact", async () => {
    const [mine, theirs] = await Promise.all([
      newTenant(inject("baseUrl"), admin),
      newTenant(inject("baseUrl"), admin),
    ]);
    const foreign = await theirs.owner.post("/api/contacts", { name: "Not Yours" });
    await expect(
      client.call(
        createServiceRequest,
        { description: "x", contactId: foreign.body.id },
        orgMetadata(mine.orgId, token),
      ),
    ).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
    });
  });
});
