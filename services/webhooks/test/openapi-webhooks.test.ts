import { inject } from "vitest";
import { describe, expect, it } from "vitest";
import { expectStatus, tenantFactory } from "@voiceops/platform/testing";

// The OpenAPI document's top-level `webhooks`: one operation per event type of the catalogue,
// whose `data` is the schema of the resource's REST responses.

const tenant = tenantFactory();

describe("the webhooks section of /openapi.json", () => {
  it("lists every event type with its payload schema, shared with the REST responses", async () => {
    const t = await tenant();
    const document = (await (await fetch(`${inject("baseUrl")}/openapi.json`)).json()) as {
      webhooks: Record<
        string,
        {
          post: {
            requestBody: { content: { "application/json": { schema: { properties: Record<string, unknown> } } } };
          };
        }
      >;
      paths: Record<
        string,
        Record<string, { responses: Record<string, { content: { "application/json": { schema: unknown } } }> }>
      >;
    };
    const catalogue = expectStatus(await t.owner.get("/api/webhooks/event-types"), 200);
    expect(Object.keys(document.webhooks).sort()).toEqual(
      catalogue.items.map((item: { type: string }) => item.type).sort(),
    );
    const dataOf = (type: string) =>
      document.webhooks[type]?.post.requestBody.content["application/json"].schema.properties.data;
    const contactResponse =
      document.paths["/api/contacts/{contact_id}"]?.get?.responses["200"]?.content["application/json"].schema;
    expect(dataOf("contact.created")).toEqual(contactResponse);
    expect(dataOf("contact.deleted")).toMatchObject({ required: ["id"] });
    expect(
      document.webhooks["lead.updated"]?.post.requestBody.content["application/json"].schema.properties.type,
    ).toEqual({ type: "string", const: "lead.updated" });
  });
});
