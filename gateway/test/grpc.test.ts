import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { CrmService } from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";
import { grpc, newTenant, orgMetadata, plainGrpcClient, testAdmin, type Tenant } from "@voiceops/platform/testing";

// A plain @grpc/grpc-js client calling the CRM service directly with the org context in metadata.

const client = plainGrpcClient(inject("serviceUrls").crm ?? "");
const token = inject("internalToken");
const admin = testAdmin();
const { createContact, getContact, searchContacts, deleteContact } = CrmService.method;

describe("CRM over plain gRPC", () => {
  let tenant: Tenant;
  beforeAll(async () => {
    tenant = await newTenant(inject("baseUrl"), admin);
  });
  afterAll(() => client.close());

  it("creates a contact that REST then shows", async () => {
    const created = await client.call(createContact, { name: "Grpc Caller", phoneNumber: "(555) 010-7777" }, orgMetadata(tenant.orgId, token));
    expect(created.contact?.phoneNumber).toBe("+15550107777");
    const read = await client.call(getContact, { contactId: created.contact!.id }, orgMetadata(tenant.orgId, token));
    expect(read.contact?.name).toBe("Grpc Caller");
    const rest = await tenant.owner.get(`/api/contacts/${created.contact!.id}`);
    expect(rest.status).toBe(200);
    expect(rest.body.name).toBe("Grpc Caller");
  });

  it("applies the same validation, scoping and roles as REST", async () => {
    await expect(client.call(searchContacts, {}, orgMetadata(tenant.orgId, token))).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
    const other = await newTenant(inject("baseUrl"), admin);
    const created = await client.call(createContact, { name: "Scoped" }, orgMetadata(tenant.orgId, token));
    await expect(client.call(getContact, { contactId: created.contact!.id }, orgMetadata(other.orgId, token))).rejects.toMatchObject({
      code: grpc.status.NOT_FOUND,
    });
    await expect(client.call(deleteContact, { contactId: created.contact!.id }, orgMetadata(tenant.orgId, token, { role: "member" }))).rejects.toMatchObject({
      code: grpc.status.PERMISSION_DENIED,
    });
  });

  it("refuses calls without the internal token", async () => {
    await expect(client.call(getContact, { contactId: "018f0000-0000-7000-8000-000000000000" }, orgMetadata(tenant.orgId, "wrong"))).rejects.toMatchObject({
      code: grpc.status.UNAUTHENTICATED,
    });
  });
});
