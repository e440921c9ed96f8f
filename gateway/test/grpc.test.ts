import { fromBinary, toBinary, type DescMessage, type MessageInitShape, type MessageShape, create } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  CreateContactRequestSchema,
  CreateContactResponseSchema,
  DeleteContactRequestSchema,
  DeleteContactResponseSchema,
  GetContactRequestSchema,
  GetContactResponseSchema,
  SearchContactsRequestSchema,
  SearchContactsResponseSchema,
} from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";
import { AdminClient, newTenant, type Tenant } from "@voiceops/platform/testing";

// A plain @grpc/grpc-js client, as a customer automation inside the cluster would use, calling
// the CRM service directly with the org context in metadata.

const crmUrl = new URL(inject("serviceUrls").crm ?? "");
const client = new grpc.Client(`${crmUrl.hostname}:${crmUrl.port}`, grpc.credentials.createInsecure());

function call<I extends DescMessage, O extends DescMessage>(
  method: string,
  input: I,
  output: O,
  request: MessageInitShape<I>,
  metadata: grpc.Metadata,
): Promise<MessageShape<O>> {
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(
      `/voiceops.crm.v1.CrmService/${method}`,
      (message: MessageShape<I>) => Buffer.from(toBinary(input, message)),
      (bytes: Buffer) => fromBinary(output, bytes),
      create(input, request),
      metadata,
      (error, response) => (error ? reject(error) : resolve(response as MessageShape<O>)),
    );
  });
}

function orgMetadata(orgId: string, role = "owner", token = inject("internalToken")): grpc.Metadata {
  const metadata = new grpc.Metadata();
  metadata.set("x-internal-token", token);
  metadata.set("x-org-id", orgId);
  metadata.set("x-org-timezone", "America/Chicago");
  metadata.set("x-org-country", "US");
  metadata.set("x-role", role);
  return metadata;
}

describe("CRM over plain gRPC", () => {
  let tenant: Tenant;
  beforeAll(async () => {
    tenant = await newTenant(inject("baseUrl"), new AdminClient(inject("adminUrl"), inject("adminToken")));
  });
  afterAll(() => client.close());

  it("creates a contact that REST then shows", async () => {
    const created = await call("CreateContact", CreateContactRequestSchema, CreateContactResponseSchema, { name: "Grpc Caller", phoneNumber: "(555) 010-7777" }, orgMetadata(tenant.orgId));
    expect(created.contact?.phoneNumber).toBe("+15550107777");
    const read = await call("GetContact", GetContactRequestSchema, GetContactResponseSchema, { contactId: created.contact!.id }, orgMetadata(tenant.orgId));
    expect(read.contact?.name).toBe("Grpc Caller");
    const rest = await tenant.owner.get(`/api/contacts/${created.contact!.id}`);
    expect(rest.status).toBe(200);
    expect(rest.body.name).toBe("Grpc Caller");
  });

  it("applies the same validation, scoping and roles as REST", async () => {
    await expect(call("SearchContacts", SearchContactsRequestSchema, SearchContactsResponseSchema, {}, orgMetadata(tenant.orgId))).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
    });
    const other = await newTenant(inject("baseUrl"), new AdminClient(inject("adminUrl"), inject("adminToken")));
    const created = await call("CreateContact", CreateContactRequestSchema, CreateContactResponseSchema, { name: "Scoped" }, orgMetadata(tenant.orgId));
    await expect(
      call("GetContact", GetContactRequestSchema, GetContactResponseSchema, { contactId: created.contact!.id }, orgMetadata(other.orgId)),
    ).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
    await expect(
      call("DeleteContact", DeleteContactRequestSchema, DeleteContactResponseSchema, { contactId: created.contact!.id }, orgMetadata(tenant.orgId, "member")),
    ).rejects.toMatchObject({ code: grpc.status.PERMISSION_DENIED });
  });

  it("refuses calls without the internal token", async () => {
    await expect(
      call("GetContact", GetContactRequestSchema, GetContactResponseSchema, { contactId: "018f0000-0000-7000-8000-000000000000" }, orgMetadata(tenant.orgId, "owner", "wrong")),
    ).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });
  });
});
