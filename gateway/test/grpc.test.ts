import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
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
    const created = await client.call(
      createContact,
      { name: "Grpc Caller", phoneNumber: "(555) 010-7777" },
      orgMetadata(tenant.orgId, token),
    );
    expect(created.contact?.phoneNumber).toBe("+15550107777");
    const read = await client.call(getContact, { contactId: created.contact!.id }, orgMetadata(tenant.orgId, token));
    expect(read.contact?.name).toBe("Grpc Caller");
    const rest = await tenant.owner.get(`/api/contacts/${created.contact!.id}`);
    expect(rest.status).toBe(200);
    expect(rest.body.name).toBe("Grpc Caller");
  });

  it("applies the same validation, scoping and roles as REST", async () => {
    await expect(client.call(searchContacts, {}, orgMetadata(tenant.orgId, token))).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
    });
    const other = await newTenant(inject("baseUrl"), admin);
    const created = await client.call(createContact, { name: "Scoped" }, orgMetadata(tenant.orgId, token));
    await expect(
      client.call(getContact, { contactId: created.contact!.id }, orgMetadata(other.orgId, token)),
    ).rejects.toMatchObject({
      code: grpc.status.NOT_FOUND,
    });
    await expect(
      client.call(
        deleteContact,
        { contactId: created.contact!.id },
        orgMetadata(tenant.orgId, token, { role: "member" }),
      ),
    ).rejects.toMatchObject({
      code: grpc.status.PERMISSION_DENIED,
    });
  });

  it("refuses calls without the internal token", async () => {
    await expect(
      client.call(
        getContact,
        { contactId: "018f0000-0000-7000-8000-000000000000" },
        orgMetadata(tenant.orgId, "wrong"),
      ),
    ).rejects.toMatchObject({
      code: grpc.status.UNAUTHENTICATED,
    });
  });
});

// Unary gRPC takes the services' direct path; the other protocols are still Connect's.
describe("CRM over the Connect and gRPC-Web protocols", () => {
  it.each([
    ["Connect (JSON)", () => createConnectTransport({ baseUrl: inject("serviceUrls").crm ?? "", httpVersion: "2" })],
    [
      "gRPC-Web (binary)",
      () =>
        createGrpcWebTransport({ baseUrl: inject("serviceUrls").crm ?? "", httpVersion: "2", useBinaryFormat: true }),
    ],
  ])("%s answers like gRPC, errors included", async (_name, transport) => {
    const tenant = await newTenant(inject("baseUrl"), admin);
    const crm = createClient(CrmService, transport());
    const headers = orgMetadata(tenant.orgId, token);
    const created = await crm.createContact({ name: "Other Protocol", phoneNumber: "(555) 010-8888" }, { headers });
    expect(created.contact?.phoneNumber).toBe("+15550108888");
    expect((await crm.getContact({ contactId: created.contact!.id }, { headers })).contact?.name).toBe(
      "Other Protocol",
    );
    const missing = await crm
      .getContact({ contactId: "018f0000-0000-7000-8000-000000000000" }, { headers })
      .catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(ConnectError);
    expect((missing as ConnectError).code).toBe(Code.NotFound);
  });
});
