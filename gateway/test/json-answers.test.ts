import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext } from "@connectrpc/connect";
import express from "express";
import {
  ContactSchema,
  ContactStatus,
  CrmService,
  GetContactResponseSchema,
  ListContactsResponseSchema,
} from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";
import {
  asksForJsonAnswers,
  createLogger,
  DEFAULT_BUSINESS_HOURS,
  JSON_ANSWER_HEADER,
  openObjectStore,
  PeerRegistry,
  type RpcServer,
  systemClock,
  writeField,
  writeMessage,
} from "@voiceops/platform";
import { startLoopbackRpcServer } from "@voiceops/platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routeDispatcher } from "../src/transcoder/mount.js";
import { collectRoutes } from "../src/transcoder/routes.js";

// The transcoder over a real service port: each route asks the service for its answer as the
// API's JSON (FAST_PATH's json-answers: the route's response_body field, or "*"; nothing for a
// 204), and the client gets the body the gateway would write from the protobuf answer. Under
// FAST_PATH=none it asks nothing, and the bodies are the same.

const TOKEN = "json-answers-test-token";
const CONTACT_ID = "018f0000-0000-7000-8000-000000000020";
const contact = create(ContactSchema, {
  id: CONTACT_ID,
  name: "Zoë 山田",
  notes: 'a "quoted"\nline',
  status: ContactStatus.LEAD,
  tags: ["vip"],
  createdAt: timestampFromDate(new Date("2026-11-30T01:02:03.456Z")),
  updatedAt: timestampFromDate(new Date("2026-11-30T01:02:03.456Z")),
});
const list = create(ListContactsResponseSchema, { items: [contact, contact], total: 2, page: 1, pageSize: 20 });

/** The JSON answer each call asked for (null: none). */
const asked: (string | null)[] = [];
const note = (ctx: HandlerContext) => asked.push(ctx.requestHeader.get(JSON_ANSWER_HEADER));

let service: RpcServer;
let gateway: Server;
let baseUrl: string;
let files: string;

beforeAll(async () => {
  service = await startLoopbackRpcServer({
    internalToken: TOKEN,
    routes: (router) =>
      router.service(CrmService, {
        async getContact(_req, ctx) {
          note(ctx);
          return { contact };
        },
        async listContacts(_req, ctx) {
          note(ctx);
          return list;
        },
        async deleteContact(_req, ctx) {
          note(ctx);
          return {};
        },
      }),
  });
  const peers = new PeerRegistry(false);
  peers.set("crm", service.url);
  files = mkdtempSync(join(tmpdir(), "json-answers-"));
  const app = express();
  app.use((req, _res, next) => {
    req.requestId = "json-answers-test";
    req.principal = {
      keyId: "key",
      orgId: "018f0000-0000-7000-8000-0000000000ac",
      role: "owner",
      timezone: "UTC",
      country: "US",
      businessHours: DEFAULT_BUSINESS_HOURS,
      expiresAt: undefined,
    };
    next();
  });
  app.use(
    routeDispatcher(collectRoutes([CrmService]), {
      peers,
      objects: openObjectStore({ dataDir: files, internalToken: TOKEN, clock: systemClock }, {}),
      internalToken: TOKEN,
      logger: createLogger("silent"),
    }),
  );
  gateway = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => gateway.once("listening", resolve));
  baseUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => gateway.close(resolve));
  await service.close(1_000);
  rmSync(files, { recursive: true, force: true });
});

const contactField = GetContactResponseSchema.fields.find((field) => field.name === "contact");

describe("answers written by the service as the API's JSON", () => {
  it("asks for the route's response_body field, or the whole answer, and sends the same body", async () => {
    if (!contactField) throw new Error("GetContactResponse has no contact field");
    asked.length = 0;
    const one = await fetch(`${baseUrl}/api/contacts/${CONTACT_ID}`);
    expect(one.status).toBe(200);
    expect(one.headers.get("content-type")).toBe("application/json; charset=utf-8");
    const oneText = await one.text();
    expect(oneText).toBe(JSON.stringify(writeField(contactField, create(GetContactResponseSchema, { contact }))));
    expect(one.headers.get("content-length")).toBe(String(Buffer.byteLength(oneText)));

    const page = await fetch(`${baseUrl}/api/contacts?page_size=20`);
    expect(page.status).toBe(200);
    expect(await page.text()).toBe(JSON.stringify(writeMessage(ListContactsResponseSchema, list)));

    const gone = await fetch(`${baseUrl}/api/contacts/${CONTACT_ID}`, { method: "DELETE" });
    expect([gone.status, await gone.text()]).toEqual([204, ""]);

    expect(asked).toEqual(asksForJsonAnswers() ? ["contact", "*", null] : [null, null, null]);
  });
});
