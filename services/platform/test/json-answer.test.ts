import http from "node:http";
import type { AddressInfo } from "node:net";
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import { connectNodeAdapter, createGrpcTransport } from "@connectrpc/connect-node";
import {
  ContactSchema,
  ContactStatus,
  CrmService,
  type GetContactRequest,
  GetContactResponseSchema,
} from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectUnaryTransport } from "../src/fast-path/connect-http1-client.js";
import { JSON_ANSWER_HEADER, JSON_ANSWER_TYPE, JsonAnswer, jsonAnswerBytes } from "../src/fast-path/json-answer.js";
import { notFound, writeField, writeMessage, type RpcServer } from "../src/index.js";
import { ownerCallHeaders, startLoopbackRpcServer } from "../src/testing/index.js";

// A call that asks for its answer as the REST API's JSON (the gateway's, under FAST_PATH's
// json-answers) gets the same bytes the gateway would have written from the protobuf answer,
// over real sockets; anything the service cannot answer so comes as protobuf.

const TOKEN = "json-answer-test-token";
const headers = ownerCallHeaders(TOKEN, { orgId: "018f0000-0000-7000-8000-0000000000ab", requestId: "test" });
const MISSING = "018f0000-0000-7000-8000-000000000001";
/** Notes of control characters: 3 MB as protobuf, 18 MB as JSON (each one written \u00XX). */
const ESCAPED = "018f0000-0000-7000-8000-000000000002";
const CREATED = new Date("2026-11-30T01:02:03.456Z");

const routes = (router: import("@connectrpc/connect").ConnectRouter) =>
  router.service(CrmService, {
    async getContact(req: GetContactRequest, ctx: HandlerContext) {
      if (req.contactId === MISSING) throw notFound("Contact");
      ctx.responseHeader.set("x-answer-header", "h");
      return {
        contact: create(ContactSchema, {
          id: req.contactId,
          name: "Zoë «Renée» 山田 🔧",
          email: undefined,
          notes: req.contactId === ESCAPED ? "\u0001".repeat(3_000_000) : 'a "quoted"\nline',
          status: ContactStatus.CUSTOMER,
          tags: ["vip", "hvac"],
          createdAt: timestampFromDate(CREATED),
          updatedAt: timestampFromDate(CREATED),
        }),
      };
    },
  });

let server: RpcServer;
/** Connect's own handler on Node's HTTP/1.1 server: a service that does not know the header. */
let stock: http.Server;
let stockUrl: string;
beforeAll(async () => {
  server = await startLoopbackRpcServer({
    internalToken: TOKEN,
    routes,
    // The fast path's server, whatever FAST_PATH says: the one that knows the header.
    directUnary: true,
  });
  stock = http.createServer(connectNodeAdapter({ routes }));
  await new Promise<void>((resolve) => stock.listen(0, "127.0.0.1", resolve));
  stockUrl = `http://127.0.0.1:${(stock.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await server.close(1_000);
  await new Promise((resolve) => stock.close(resolve));
});

const transportTo = (url: string) =>
  connectUnaryTransport(url, { fallback: () => createGrpcTransport({ baseUrl: url }) });
const getContact = (url: string, contactId: string, asked?: string) =>
  transportTo(url).unary(
    CrmService.method.getContact,
    undefined,
    undefined,
    asked === undefined ? headers : { ...headers, [JSON_ANSWER_HEADER]: asked },
    { contactId },
  );

describe("answers as REST JSON between the gateway and a service", () => {
  const contactId = "018f0000-0000-7000-8000-000000000010";

  it("writes the whole answer, or the field asked for, as the gateway writes the protobuf answer", async () => {
    const plain = await getContact(server.url, contactId);
    expect(jsonAnswerBytes(plain.message)).toBeUndefined();
    const message = plain.message as unknown as Record<string, unknown>;

    const whole = await getContact(server.url, contactId, "*");
    expect(whole.message).toBeInstanceOf(JsonAnswer);
    expect(Buffer.from(jsonAnswerBytes(whole.message) ?? []).toString()).toBe(
      JSON.stringify(writeMessage(GetContactResponseSchema, message)),
    );
    expect(whole.header.get("x-answer-header")).toBe("h");

    const field = await getContact(server.url, contactId, "contact");
    const contactField = GetContactResponseSchema.fields.find((candidate) => candidate.name === "contact");
    if (!contactField) throw new Error("GetContactResponse has no contact field");
    const text = Buffer.from(jsonAnswerBytes(field.message) ?? []).toString();
    expect(text).toBe(JSON.stringify(writeField(contactField, message)));
    expect(JSON.parse(text)).toMatchObject({
      id: contactId,
      name: "Zoë «Renée» 山田 🔧",
      email: null,
      notes: 'a "quoted"\nline',
      status: "customer",
      tags: ["vip", "hvac"],
      created_at: "2026-11-30T01:02:03.456Z",
    });
  });

  it("answers in protobuf when the header names no field of the answer", async () => {
    for (const asked of ["nope", "", "contact.id", "__proto__"]) {
      const answer = await getContact(server.url, contactId, asked);
      expect(jsonAnswerBytes(answer.message), asked).toBeUndefined();
      expect(answer.message.contact?.id).toBe(contactId);
    }
  });

  it("answers in protobuf when the JSON would pass the message limit", async () => {
    const answer = await getContact(server.url, ESCAPED, "*");
    expect(jsonAnswerBytes(answer.message)).toBeUndefined();
    expect(answer.message.contact?.notes?.length).toBe(3_000_000);
  });

  it("keeps errors as the service's errors", async () => {
    const failure = await getContact(server.url, MISSING, "*").catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConnectError);
    expect((failure as ConnectError).code).toBe(Code.NotFound);
  });

  it("takes a protobuf answer from a service that does not know the header", async () => {
    const answer = await getContact(stockUrl, contactId, "*");
    expect(jsonAnswerBytes(answer.message)).toBeUndefined();
    expect(answer.message.contact?.name).toBe("Zoë «Renée» 山田 🔧");
  });

  it("refuses a JSON answer the call did not ask for", async () => {
    const rogue = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": JSON_ANSWER_TYPE });
      res.end("{}");
    });
    await new Promise<void>((resolve) => rogue.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(rogue.address() as AddressInfo).port}`;
      const failure = await getContact(url, contactId).catch((error: unknown) => error);
      expect((failure as ConnectError).code).toBe(Code.Internal);
      expect((failure as ConnectError).rawMessage).toContain("unexpected content type");
      expect((await getContact(url, contactId, "*")).message).toBeInstanceOf(JsonAnswer);
    } finally {
      await new Promise((resolve) => rogue.close(resolve));
    }
  });
});
