import { describe, expect, inject, it } from "vitest";
import { hasOption } from "@bufbuild/protobuf";
import { http } from "@voiceops/proto/google/api/annotations_pb";
import { CommsService } from "@voiceops/proto/voiceops/comms/v1/comms_service_pb";

const baseUrl = inject("baseUrl");

describe("comms routes in the OpenAPI document", () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let doc: any;

  it("lists every comms route with its success status", async () => {
    doc = await (await fetch(`${baseUrl}/openapi.json`)).json();
    const expected: [string, string, string][] = [
      ["/api/activities", "get", "200"],
      ["/api/activities", "post", "201"],
      ["/api/activities/{activity_id}", "get", "200"],
      ["/api/calls", "get", "200"],
      ["/api/calls", "delete", "200"],
      ["/api/calls/{session_id}", "get", "200"],
      ["/api/calls/{session_id}", "delete", "200"],
      ["/api/calls/{session_id}/recording", "get", "200"],
      ["/api/calls/{session_id}/recording", "put", "200"],
      ["/api/messages", "get", "200"],
      ["/api/conversations", "get", "200"],
      ["/api/conversations", "post", "201"],
      ["/api/conversations/{conversation_id}", "get", "200"],
      ["/api/conversations/{conversation_id}", "delete", "204"],
      ["/api/conversations/{conversation_id}/messages", "get", "200"],
      ["/api/conversations/{conversation_id}/messages", "post", "201"],
      ["/api/conversations/{conversation_id}/end", "put", "200"],
      ["/api/caller-memory", "get", "200"],
      ["/api/caller-memory", "delete", "200"],
    ];
    // Every RPC with an HTTP rule (RecordLookups is gRPC only).
    expect(expected).toHaveLength(CommsService.methods.filter((method) => hasOption(method, http)).length);
    for (const [path, verb, status] of expected)
      expect(doc.paths[path]?.[verb]?.responses?.[status], `${verb} ${path}`).toBeDefined();
  });

  it("publishes x-internal-key as a header parameter, not a body field", () => {
    const post = doc.paths["/api/activities"].post;
    // Beside the Idempotency-Key header every write declares (a reference to the shared parameter).
    expect(post.parameters).toHaveLength(2);
    expect(post.parameters).toContainEqual(
      expect.objectContaining({ name: "x-internal-key", in: "header", required: false }),
    );
    const body = post.requestBody.content["application/json"].schema;
    expect(Object.keys(body.properties)).not.toContain("internal_key");
    expect(body.properties.activity_type.enum).toContain("CALL_ENDED");
    expect(body.required).toEqual(["activity_type"]);
  });

  it("documents the recording upload: audio, 413 and 415", () => {
    const put = doc.paths["/api/calls/{session_id}/recording"].put;
    expect(Object.keys(put.requestBody.content)).toContain("audio/*");
    expect(put.responses["413"]).toBeDefined();
    expect(put.responses["415"]).toBeDefined();
    const list = doc.paths["/api/calls"].get.parameters.find((p: { name: string }) => p.name === "page_size");
    expect(list.schema).toMatchObject({ minimum: 1, maximum: 200, default: 25 });
  });
});
