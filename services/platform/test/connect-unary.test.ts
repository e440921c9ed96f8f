import http from "node:http";
import http2 from "node:http2";
import net from "node:net";
import { create, toBinary } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createClient, type HandlerContext } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import {
  ContactSchema,
  ContactStatus,
  CrmService,
  type CreateContactRequest,
  type GetContactRequest,
  GetContactRequestSchema,
  GetContactResponseSchema,
} from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { connectUnaryTransport } from "../src/fast-path/connect-http1-client.js";
import { invalidArgument, invalidValue, isAnswered, notFound, violationsOf, type RpcServer } from "../src/index.js";
import { connectHttp1Transport, serviceTransport } from "../src/rpc/client.js";
import { unavailableInTransit } from "../src/rpc/errors.js";
import { ownerCallHeaders, startLoopbackRpcServer } from "../src/testing/index.js";

// The calls between components: unary Connect over kept-alive HTTP/1.1 connections, served
// on the same port as gRPC over HTTP/2. A real server on a loopback port, real sockets.

const TOKEN = "connect-unary-test-token";
const ORG = "018f0000-0000-7000-8000-0000000000aa";
const headers = ownerCallHeaders(TOKEN, { orgId: ORG, requestId: "test" });
const contact = (id: string, notes = "") =>
  create(ContactSchema, {
    id,
    name: "Jane Doe",
    notes,
    status: ContactStatus.LEAD,
    createdAt: timestampFromDate(new Date()),
    updatedAt: timestampFromDate(new Date()),
  });

const id = (n: number) => `018f0000-0000-7000-8000-${String(n).padStart(12, "0")}`;
// Contact ids the test service treats specially.
const MISSING = id(1);
const SLOW = id(2);
const HOLD = id(3);
const BOOM = id(4);
const LARGE = id(5);
const HUGE = id(6);

/** The fast path's client as serviceTransport makes it (FAST_PATH's rpc), whatever FAST_PATH says: the tests of its pool and pipelining. */
const fastTransport = (url: string) =>
  unavailableInTransit(connectUnaryTransport(url, { fallback: () => createGrpcTransport({ baseUrl: url }) }), "crm");

/** The contact ids getContact was asked for. */
const seen: string[] = [];

/** Calls held until released (getContact of HOLD). */
const held: (() => void)[] = [];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function start(port = 0): Promise<RpcServer> {
  return startLoopbackRpcServer({
    port,
    internalToken: TOKEN,
    routes: (router) => {
      router.service(CrmService, {
        async getContact(req: GetContactRequest, ctx: HandlerContext) {
          seen.push(req.contactId);
          if (req.contactId === MISSING) throw notFound("Contact");
          if (req.contactId === SLOW) await new Promise((resolve) => setTimeout(resolve, 1_000));
          if (req.contactId === HOLD) await new Promise<void>((resolve) => held.push(resolve));
          if (req.contactId === BOOM) throw new Error("SELECT secret FROM somewhere");
          ctx.responseHeader.set("x-answer-header", "h");
          ctx.responseTrailer.set("x-answer-trailer", "t");
          return {
            contact: contact(
              req.contactId,
              req.contactId === LARGE ? "n".repeat(3_000_000) : req.contactId === HUGE ? "n".repeat(12_000_000) : "",
            ),
          };
        },
        async createContact(req: CreateContactRequest) {
          throw invalidArgument([invalidValue("contact.name", "is not a name", req.name)]);
        },
      });
    },
  });
}

let server: RpcServer;
beforeAll(async () => {
  server = await start();
});
afterAll(() => server.close(1_000));
afterEach(() => {
  for (const release of held.splice(0)) release();
});

describe("unary Connect over HTTP/1.1 between components", () => {
  it("answers with the message and the handler's response headers and trailers", async () => {
    const transport = serviceTransport(server.url, "crm");
    const response = await transport.unary(CrmService.method.getContact, undefined, undefined, headers, {
      contactId: id(10),
    });
    expect(response.message.contact?.id).toBe(id(10));
    expect(response.header.get("x-answer-header")).toBe("h");
    expect(response.trailer.get("x-answer-trailer")).toBe("t");
  });

  it("carries a service's errors with their code, details and origin", async () => {
    const crm = createClient(CrmService, serviceTransport(server.url, "crm"));
    const invalid = await crm.createContact({ name: "?" }, { headers }).catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(ConnectError);
    expect((invalid as ConnectError).code).toBe(Code.InvalidArgument);
    expect(violationsOf(invalid as ConnectError)).toMatchObject([{ field: "contact.name", message: "is not a name" }]);
    expect(isAnswered(invalid as ConnectError)).toBe(true);
    const missing = (await crm
      .getContact({ contactId: MISSING }, { headers })
      .catch((error: unknown) => error)) as ConnectError;
    expect([missing.code, isAnswered(missing)]).toEqual([Code.NotFound, true]);
    // An unexpected failure is masked by the service: INTERNAL without the cause.
    const internal = (await crm
      .getContact({ contactId: BOOM }, { headers })
      .catch((error: unknown) => error)) as ConnectError;
    expect([internal.code, internal.rawMessage, isAnswered(internal)]).toEqual([Code.Internal, "internal error", true]);
    const anonymous = (await crm
      .getContact({ contactId: id(10) }, { headers: { ...headers, "x-internal-token": "wrong" } })
      .catch((error: unknown) => error)) as ConnectError;
    expect(anonymous.code).toBe(Code.Unauthenticated);
  });

  it("moves messages of megabytes both ways", async () => {
    const crm = createClient(CrmService, serviceTransport(server.url, "crm"));
    const answer = await crm.getContact({ contactId: LARGE }, { headers });
    expect(answer.contact?.notes?.length).toBe(3_000_000);
  });

  it("refuses a request past 16 MB: RESOURCE_EXHAUSTED over HTTP/1.1, a failed call over gRPC, and serves the next call", async () => {
    const name = "n".repeat(16 * 1024 * 1024 + 1);
    // The transports themselves: serviceTransport would make a refusal the service's code did not answer UNAVAILABLE.
    const fastClient = connectUnaryTransport(server.url, {
      fallback: () => createGrpcTransport({ baseUrl: server.url }),
    });
    for (const transport of [fastClient, connectHttp1Transport(server.url)]) {
      const crm = createClient(CrmService, transport);
      const refused = (await crm.createContact({ name }, { headers }).catch((error: unknown) => error)) as ConnectError;
      expect(refused.code).toBe(Code.ResourceExhausted);
      expect(refused.rawMessage).toMatch(/larger than .*16777216/);
    }
    // Connect's handler resets the HTTP/2 stream of a message past its limit.
    const grpc = createClient(CrmService, createGrpcTransport({ baseUrl: server.url }));
    await expect(grpc.createContact({ name }, { headers })).rejects.toBeInstanceOf(ConnectError);
    expect((await grpc.getContact({ contactId: id(11) }, { headers })).contact?.id).toBe(id(11));
  });

  it("ends a call at its deadline or on abort, and the next call still goes through", async () => {
    const crm = createClient(CrmService, serviceTransport(server.url, "crm"));
    const late = (await crm
      .getContact({ contactId: SLOW }, { headers, timeoutMs: 100 })
      .catch((error: unknown) => error)) as ConnectError;
    expect(late.code).toBe(Code.DeadlineExceeded);
    const controller = new AbortController();
    const aborted = crm
      .getContact({ contactId: HOLD }, { headers, signal: controller.signal })
      .catch((error: unknown) => error);
    setTimeout(() => controller.abort(), 50);
    expect(((await aborted) as ConnectError).code).toBe(Code.Canceled);
    expect((await crm.getContact({ contactId: id(14) }, { headers })).contact?.id).toBe(id(14));
  });

  it("never sends metadata that would break the request's headers", async () => {
    const crm = createClient(
      CrmService,
      connectUnaryTransport(server.url, { fallback: () => createGrpcTransport({ baseUrl: server.url }) }),
    );
    const injected = (await crm
      .getContact({ contactId: id(10) }, { headers: { ...headers, "x-request-id": "a\r\nx-role: owner" } })
      .catch((error: unknown) => error)) as ConnectError;
    expect(injected.code).toBe(Code.Internal);
    expect(injected.rawMessage).toContain("x-request-id");
  });

  it("keeps at most 128 connections to a service and queues the calls beyond them", async () => {
    const crm = createClient(CrmService, fastTransport(server.url));
    // Each call in a turn of its own: a call never joins a connection whose answers are
    // awaited, so each takes a connection of its own while there are fewer than 128.
    const started: Promise<unknown>[] = [];
    for (let i = 0; i < 300; i++) {
      started.push(crm.getContact({ contactId: HOLD }, { headers }));
      await new Promise((resolve) => setImmediate(resolve));
    }
    const calls = Promise.all(started);
    for (let waited = 0; held.length < 128 && waited < 10_000; waited += 20) await sleep(20);
    await sleep(200);
    expect(held.length).toBe(128);
    let answered = false;
    void calls.finally(() => {
      answered = true;
    });
    while (!answered) {
      for (const release of held.splice(0)) release();
      await sleep(10);
    }
    expect(await calls).toHaveLength(300);
  });

  it("sends the calls of one turn pipelined, 16 to a connection in one write, and matches each answer to its call", async () => {
    const proxy = await countingProxy(server.url);
    const crm = createClient(CrmService, fastTransport(proxy.url));
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, n) => crm.getContact({ contactId: id(100 + n) }, { headers })),
    );
    expect(answers.map((answer) => answer.contact?.id)).toEqual(Array.from({ length: 40 }, (_, n) => id(100 + n)));
    expect([proxy.connections, proxy.writes]).toEqual([3, 3]);
    // An error among them is that call's alone.
    const mixed = await Promise.all(
      [id(140), MISSING, id(141)].map((contactId) =>
        crm.getContact({ contactId }, { headers }).catch((error: unknown) => error),
      ),
    );
    expect(
      mixed.map((answer) =>
        answer instanceof ConnectError ? answer.code : (answer as { contact?: { id: string } }).contact?.id,
      ),
    ).toEqual([id(140), Code.NotFound, id(141)]);
    expect(proxy.connections).toBe(3);
    proxy.close();
  });

  it("holds up only the calls sent with a slow one, and keeps the others of a cut call's write", async () => {
    const proxy = await countingProxy(server.url);
    const crm = createClient(CrmService, fastTransport(proxy.url));
    const controller = new AbortController();
    const first = [
      crm.getContact({ contactId: HOLD }, { headers, signal: controller.signal }).catch((error: unknown) => error),
      crm.getContact({ contactId: id(150) }, { headers }),
    ];
    await sleep(50);
    // A later turn's call takes another connection and is answered at once.
    expect((await crm.getContact({ contactId: id(151) }, { headers })).contact?.id).toBe(id(151));
    controller.abort();
    expect(((await first[0]) as ConnectError).code).toBe(Code.Canceled);
    // The call sent behind the cut one is still answered, once the held answer has come and gone.
    for (const release of held.splice(0)) release();
    expect(((await first[1]) as { contact?: { id: string } }).contact?.id).toBe(id(150));
    expect(proxy.connections).toBe(2);
    expect((await crm.getContact({ contactId: id(152) }, { headers })).contact?.id).toBe(id(152));
    expect(proxy.connections).toBe(2);
    proxy.close();
  });

  it("reads an answer sent in chunks, and fails a call whose answer is followed by stray bytes or has a malformed header", async () => {
    const body = Buffer.from(
      toBinary(GetContactResponseSchema, create(GetContactResponseSchema, { contact: contact(id(20)) })),
    );
    const head = "HTTP/1.1 200 OK\r\ncontent-type: application/proto\r\n";
    let answer = "";
    const raw = net.createServer((socket) => socket.on("data", () => socket.write(Buffer.from(answer, "latin1"))));
    await new Promise<void>((resolve) => raw.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(raw.address() as net.AddressInfo).port}`;
    const crm = createClient(
      CrmService,
      connectUnaryTransport(url, { fallback: () => createGrpcTransport({ baseUrl: url }) }),
    );
    const half = Math.floor(body.length / 2);
    answer = `${head}transfer-encoding: chunked\r\n\r\n${half.toString(16)}\r\n${body.subarray(0, half).toString("latin1")}\r\n${(body.length - half).toString(16)}\r\n${body.subarray(half).toString("latin1")}\r\n0\r\n\r\n`;
    expect((await crm.getContact({ contactId: id(20) }, { headers })).contact?.id).toBe(id(20));
    answer = `${head}content-length: ${body.length}\r\n\r\n${body.toString("latin1")}HTTP/1.1 200 OK\r\n`;
    const stray = (await crm
      .getContact({ contactId: id(20) }, { headers, timeoutMs: 5_000 })
      .catch((error: unknown) => error)) as ConnectError;
    expect([stray.code, stray.rawMessage]).toEqual([Code.Unavailable, "protocol error: bytes after the answer"]);
    // A header name with a space, a value with a control character: the call fails, the next goes through.
    for (const bad of ["x bad: 1", "x-bad: a\x01b"]) {
      answer = `${head}${bad}\r\ncontent-length: ${body.length}\r\n\r\n${body.toString("latin1")}`;
      const malformed = (await crm
        .getContact({ contactId: id(20) }, { headers, timeoutMs: 5_000 })
        .catch((error: unknown) => error)) as ConnectError;
      expect([malformed.code, malformed.rawMessage]).toEqual([Code.Unavailable, "protocol error: bad header line"]);
    }
    answer = `${head}X-Mixed-Case: v\r\ncontent-length: ${body.length}\r\n\r\n${body.toString("latin1")}`;
    let seen: Headers | undefined;
    expect(
      (await crm.getContact({ contactId: id(20) }, { headers, onHeader: (header) => (seen = header) })).contact?.id,
    ).toBe(id(20));
    expect([seen?.get("x-mixed-case"), seen?.get("content-type")]).toEqual(["v", "application/proto"]);
    raw.close();
  });

  it("reconnects after the service restarts on the same port, and says unavailable while it is down", async () => {
    const restarted = await start();
    const port = Number(new URL(restarted.url).port);
    const crm = createClient(CrmService, serviceTransport(restarted.url, "crm"));
    expect((await crm.getContact({ contactId: id(10) }, { headers })).contact?.id).toBe(id(10));
    await restarted.close(1_000);
    const down = (await crm
      .getContact({ contactId: id(10) }, { headers })
      .catch((error: unknown) => error)) as ConnectError;
    expect([down.code, down.rawMessage]).toEqual([Code.Unavailable, "crm unavailable"]);
    const again = await start(port);
    expect((await crm.getContact({ contactId: id(11) }, { headers })).contact?.id).toBe(id(11));
    await again.close(1_000);
  });

  it("lets calls in flight finish when the service closes, and closes the kept-alive connections", async () => {
    const closing = await start();
    const crm = createClient(CrmService, serviceTransport(closing.url, "crm"));
    expect((await crm.getContact({ contactId: id(15) }, { headers })).contact?.id).toBe(id(15));
    const inFlight = crm.getContact({ contactId: HOLD }, { headers });
    await sleep(100);
    const closed = closing.close(5_000);
    await sleep(100);
    for (const release of held.splice(0)) release();
    expect((await inFlight).contact?.id).toBe(HOLD);
    await closed;
  });
});

describe("one port for both protocols", () => {
  it("serves gRPC and Connect over HTTP/2 and the Connect protocol's JSON over HTTP/1.1", async () => {
    for (const transport of [
      createGrpcTransport({ baseUrl: server.url }),
      createConnectTransport({ baseUrl: server.url, httpVersion: "2" }),
      createConnectTransport({ baseUrl: server.url, httpVersion: "1.1" }),
    ]) {
      const crm = createClient(CrmService, transport);
      expect((await crm.getContact({ contactId: id(12) }, { headers })).contact?.id).toBe(id(12));
      expect(
        ((await crm.getContact({ contactId: MISSING }, { headers }).catch((error: unknown) => error)) as ConnectError)
          .code,
      ).toBe(Code.NotFound);
    }
  });

  it("answers a connection that opens with neither protocol as HTTP/1.1 would", async () => {
    const answer = await new Promise<string>((resolve) => {
      const socket = net.connect(Number(new URL(server.url).port), "127.0.0.1", () => socket.write("garbage\r\n\r\n"));
      let text = "";
      socket.on("data", (chunk) => (text += chunk.toString()));
      socket.on("close", () => resolve(text));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
  });

  it("tells HTTP/2 clients to go away when it closes and HTTP/1.1 clients Connection: close when it drains", async () => {
    const draining = await start();
    const session = http2.connect(draining.url);
    const goaway = new Promise<void>((resolve) => session.once("goaway", () => resolve()));
    await new Promise<void>((resolve) => session.once("connect", () => resolve()));
    draining.drain();
    const status = await new Promise<{ status: number | undefined; connection: string | undefined }>((resolve) => {
      const req = http.request(
        `${draining.url}/voiceops.crm.v1.CrmService/GetContact`,
        { method: "POST", headers: { ...headers, "content-type": "application/json" } },
        (res) => {
          res.resume();
          resolve({ status: res.statusCode, connection: res.headers.connection });
        },
      );
      req.end(JSON.stringify({ contactId: id(13) }));
    });
    expect(status).toEqual({ status: 200, connection: "close" });
    await draining.close(1_000);
    await goaway;
    session.destroy();
  });

  it("answers every call pipelined on a connection when it drains, the last one saying close", async () => {
    const draining = await start();
    const proxy = await countingProxy(draining.url);
    const crm = createClient(CrmService, fastTransport(proxy.url));
    expect((await crm.getContact({ contactId: id(160) }, { headers })).contact?.id).toBe(id(160));
    draining.drain();
    // Node runs every pipelined request it has read but drops the answers after one saying close.
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, n) =>
        crm.getContact({ contactId: id(161 + n) }, { headers }).catch((error: unknown) => error),
      ),
    );
    expect(answers.map((answer) => (answer as { contact?: { id: string } }).contact?.id)).toEqual(
      Array.from({ length: 5 }, (_, n) => id(161 + n)),
    );
    // The connection closed after the last answer: the next call opens another.
    expect((await crm.getContact({ contactId: id(166) }, { headers })).contact?.id).toBe(id(166));
    expect(proxy.connections).toBe(2);
    proxy.close();
    await draining.close(1_000);
  });

  it("does not run a request read after the answer that says close", async () => {
    const draining = await start();
    draining.drain();
    // The first answer (12 MB, unread) is still being written when the second request arrives.
    const socket = net.connect(Number(new URL(draining.url).port), "127.0.0.1");
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    socket.pause();
    const request = (contactId: string) => {
      const body = Buffer.from(toBinary(GetContactRequestSchema, create(GetContactRequestSchema, { contactId })));
      const head = Object.entries({
        ...headers,
        "content-type": "application/proto",
        "content-length": String(body.length),
      })
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join("");
      return Buffer.concat([
        Buffer.from(`POST /voiceops.crm.v1.CrmService/GetContact HTTP/1.1\r\nhost: crm\r\n${head}\r\n`),
        body,
      ]);
    };
    socket.write(request(HUGE));
    await sleep(300);
    socket.write(request(id(170)));
    await sleep(300);
    const received: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => received.push(chunk));
    await new Promise<void>((resolve) => {
      socket.once("close", () => resolve());
      socket.resume();
    });
    const text = Buffer.concat(received).toString("latin1");
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(text.toLowerCase()).toContain("\r\nconnection: close\r\n");
    expect(text.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    expect(seen).toContain(HUGE);
    expect(seen).not.toContain(id(170));
    await draining.close(1_000);
  });
});

/** A loopback proxy in front of a server that counts the connections made and the writes that reach it. */
async function countingProxy(
  target: string,
): Promise<{ url: string; connections: number; writes: number; close(): void }> {
  const port = Number(new URL(target).port);
  const sockets = new Set<net.Socket>();
  const counts = { connections: 0, writes: 0 };
  const proxy = net.createServer((client) => {
    counts.connections++;
    const upstream = net.connect(port, "127.0.0.1");
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => undefined);
      socket.on("close", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.on("data", (chunk: Buffer) => {
      counts.writes++;
      upstream.write(chunk);
    });
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`,
    get connections() {
      return counts.connections;
    },
    get writes() {
      return counts.writes;
    },
    close() {
      proxy.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}
