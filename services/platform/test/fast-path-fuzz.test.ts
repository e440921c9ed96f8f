import net from "node:net";
import { create, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { CrmService, GetContactResponseSchema } from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_HEAD_BYTES, ResponseParser, type Answer } from "../src/fast-path/http1-response.js";
import { readReplies } from "../src/fast-path/pglite-protocol.js";
import { connectUnaryTransport, type RpcServer } from "../src/index.js";
import { ownerCallHeaders, startLoopbackRpcServer } from "../src/testing/index.js";

// Fuzz tests of the parsers the fast path keeps (src/fast-path): the HTTP/1.1 answers of the
// Connect client, the Connect server's request bodies, and the PGlite replies. Inputs are
// generated from a fixed seed in bounded loops, so a failure reproduces.

/** A small seeded generator (mulberry32): the same inputs on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const below = (next: () => number, n: number) => Math.floor(next() * n);
const bytes = (next: () => number, n: number) => Buffer.from(Array.from({ length: n }, () => below(next, 256)));

/** An answer as a Connect server could write it: a body by content-length or in chunks, some header fields. */
function answerBytes(next: () => number, body: Buffer, status = 200): { wire: Buffer; chunked: boolean } {
  const chunked = next() < 0.5;
  let head = `HTTP/1.1 ${status} OK\r\ncontent-type: application/proto\r\n`;
  for (let i = below(next, 4); i > 0; i--) head += `x-field-${i}: ${"v".repeat(below(next, 40))}\r\n`;
  if (!chunked)
    return {
      wire: Buffer.concat([Buffer.from(`${head}content-length: ${body.length}\r\n\r\n`, "latin1"), body]),
      chunked,
    };
  const parts: Buffer[] = [Buffer.from(`${head}transfer-encoding: chunked\r\n\r\n`, "latin1")];
  for (let at = 0; at < body.length; ) {
    const size = Math.min(body.length - at, 1 + below(next, 64));
    parts.push(
      Buffer.from(`${size.toString(16)}${next() < 0.2 ? ";ext=1" : ""}\r\n`, "latin1"),
      body.subarray(at, at + size),
      Buffer.from("\r\n"),
    );
    at += size;
  }
  parts.push(Buffer.from("0\r\n\r\n"));
  return { wire: Buffer.concat(parts), chunked };
}

/** Feeds the pieces in turn; the answers read, or the error thrown. */
function parse(pieces: Buffer[]): { answers: Answer[]; error?: Error } {
  const parser = new ResponseParser();
  const answers: Answer[] = [];
  try {
    for (const piece of pieces) {
      parser.push(piece);
      for (let answer = parser.next(); answer; answer = parser.next()) answers.push(answer);
    }
  } catch (error) {
    return { answers, error: error as Error };
  }
  return { answers };
}

/** Cuts a buffer at the given offsets. */
function cut(wire: Buffer, offsets: number[]): Buffer[] {
  const sorted = [...new Set(offsets)].filter((o) => o > 0 && o < wire.length).sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let from = 0;
  for (const at of [...sorted, wire.length]) {
    pieces.push(wire.subarray(from, at));
    from = at;
  }
  return pieces;
}

const PROTOCOL_ERROR = /^(protocol error: |answer larger than )/;

describe("the Connect client's HTTP/1.1 answer parser", () => {
  it("reads answers split anywhere: in the head, in a chunk size, in a body, between answers", () => {
    const next = random(1);
    for (let round = 0; round < 200; round++) {
      const bodies = Array.from({ length: 1 + below(next, 4) }, () => bytes(next, below(next, 300)));
      const wire = Buffer.concat(bodies.map((body) => answerBytes(next, body).wire));
      const offsets = Array.from({ length: below(next, 12) }, () => below(next, wire.length));
      const { answers, error } = parse(cut(wire, offsets));
      expect(error).toBeUndefined();
      expect(answers.map((a) => a.body)).toEqual(bodies);
      expect(answers.every((a) => a.status === 200 && a.fields.some(([name]) => name === "content-type"))).toBe(true);
    }
  });

  it("reads one answer fed a byte at a time", () => {
    const next = random(2);
    for (const body of [Buffer.alloc(0), bytes(next, 1), bytes(next, 200)]) {
      for (let i = 0; i < 2; i++) {
        const { wire } = answerBytes(next, body);
        const { answers, error } = parse(
          cut(
            wire,
            Array.from({ length: wire.length }, (_, at) => at),
          ),
        );
        expect(error).toBeUndefined();
        expect(answers.map((a) => a.body)).toEqual([body]);
      }
    }
  });

  it("refuses bad chunked encoding: sizes that are not hexadecimal, too long, negative, or a chunk without its CRLF", () => {
    const body = Buffer.from("0123456789abcdef");
    const head = "HTTP/1.1 200 OK\r\ncontent-type: application/proto\r\ntransfer-encoding: chunked\r\n\r\n";
    const bad = [
      `zz\r\n${body}\r\n0\r\n\r\n`,
      `-10\r\n${body}\r\n0\r\n\r\n`,
      ` 10\r\n${body}\r\n0\r\n\r\n`,
      `\r\n${body}\r\n0\r\n\r\n`,
      `1ffffffff\r\n${body}\r\n0\r\n\r\n`,
      `10\r\n${body}XX0\r\n\r\n`,
      `8\r\n${body}\r\n0\r\n\r\n`,
      `${"1".repeat(MAX_HEAD_BYTES + 1)}`,
      `1000001\r\n${body}`,
    ];
    for (const chunks of bad) {
      const { answers, error } = parse([Buffer.from(head + chunks, "latin1")]);
      expect(answers).toEqual([]);
      expect(error?.message).toMatch(PROTOCOL_ERROR);
    }
    // Mutations of a valid chunked answer: each byte of the chunk-size lines replaced in turn.
    const next = random(3);
    for (let round = 0; round < 300; round++) {
      const { wire } = answerBytes(() => 0.9, bytes(next, 1 + below(next, 100)));
      const at = wire.indexOf("\r\n\r\n") + 4 + below(next, 3);
      const mutated = Buffer.from(wire);
      mutated[at] = below(next, 256);
      const { error } = parse([mutated]);
      if (error) expect(error.message).toMatch(PROTOCOL_ERROR);
    }
  });

  it("refuses a head past 64 KiB, whether or not it ever ends, and many small fields alike", () => {
    const endless = Buffer.from(`HTTP/1.1 200 OK\r\nx-big: ${"a".repeat(MAX_HEAD_BYTES)}`, "latin1");
    expect(parse(cut(endless, [10, 1000, 40_000])).error?.message).toBe("protocol error: response head too large");
    const fields = Array.from({ length: 5_000 }, (_, i) => `x-f${i}: ${"v".repeat(10)}\r\n`).join("");
    const many = Buffer.from(`HTTP/1.1 200 OK\r\n${fields}content-length: 0\r\n\r\n`, "latin1");
    expect(parse([many]).error?.message).toBe("protocol error: response head too large");
  });

  it("refuses bad heads: status lines, field lines, lengths", () => {
    for (const head of [
      "HTTP/2 200 OK\r\ncontent-length: 0\r\n\r\n",
      "HTTP/1.1 2000 OK\r\ncontent-length: 0\r\n\r\n",
      "HTTP/1.1 200 OK\r\n: no-name\r\ncontent-length: 0\r\n\r\n",
      "HTTP/1.1 200 OK\r\nno colon\r\ncontent-length: 0\r\n\r\n",
      "HTTP/1.1 200 OK\r\ncontent-length: -1\r\n\r\n",
      "HTTP/1.1 200 OK\r\ncontent-length: 1e3\r\n\r\n",
      "HTTP/1.1 200 OK\r\ncontent-length: 99999999999999999999\r\n\r\n",
      "HTTP/1.1 200 OK\r\ncontent-length: 16777217\r\n\r\n",
      "HTTP/1.1 200 OK\r\ncontent-type: application/proto\r\n\r\n",
    ]) {
      expect(parse([Buffer.from(head, "latin1")]).error?.message).toMatch(PROTOCOL_ERROR);
    }
  });

  it("answers garbage with a protocol error or by waiting for more, never with another failure", () => {
    const next = random(4);
    for (let round = 0; round < 500; round++) {
      const garbage =
        round % 2 === 0
          ? bytes(next, below(next, 2_000))
          : Buffer.concat([Buffer.from("HTTP/1.1 200 OK\r\n"), bytes(next, below(next, 500))]);
      const { error } = parse(cut(garbage, [below(next, garbage.length)]));
      if (error) expect(error.message).toMatch(PROTOCOL_ERROR);
    }
  });
});

const TOKEN = "fast-path-fuzz-token";
const [C1, C2, C3] = [1, 2, 3].map((n) => `018f0000-0000-7000-8000-${String(n).padStart(12, "0")}`) as [
  string,
  string,
  string,
];
const headers = ownerCallHeaders(TOKEN, { orgId: "018f0000-0000-7000-8000-0000000000aa", requestId: "fuzz" });

describe("the fast path over real sockets", () => {
  let server: RpcServer;
  beforeAll(async () => {
    server = await startLoopbackRpcServer({
      internalToken: TOKEN,
      // The fast-path server, whatever FAST_PATH says: it is what these tests are about.
      directUnary: true,
      routes: (router) => {
        router.service(CrmService, {
          async getContact(req) {
            return { contact: { id: req.contactId, name: "Jane Doe", phoneNumber: "+15550100000" } };
          },
        });
      },
    });
  });
  afterAll(() => server.close(1_000));

  it("fails a call whose answer stops early (the connection closes mid-head, mid-body, mid-chunk) as UNAVAILABLE, then calls again", async () => {
    const body = Buffer.from(
      toBinary(GetContactResponseSchema, create(GetContactResponseSchema, { contact: { id: C1, name: "Jane Doe" } })),
    );
    const { wire: sized } = answerBytes(() => 0.9, body);
    const chunkedWire = Buffer.from(
      `HTTP/1.1 200 OK\r\ncontent-type: application/proto\r\ntransfer-encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body.toString("latin1")}\r\n0\r\n\r\n`,
      "latin1",
    );
    let reply: Buffer = Buffer.alloc(0);
    const raw = net.createServer((socket) => {
      socket.on("error", () => undefined);
      socket.once("data", () => socket.end(reply));
    });
    await new Promise<void>((resolve) => raw.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(raw.address() as net.AddressInfo).port}`;
    const crm = createClient(
      CrmService,
      connectUnaryTransport(url, { fallback: () => createGrpcTransport({ baseUrl: url }) }),
    );
    try {
      for (const wire of [sized, chunkedWire]) {
        for (const at of [0, 5, 20, wire.indexOf("\r\n\r\n") + 2, wire.length - body.length + 3, wire.length - 3]) {
          reply = wire.subarray(0, at);
          const failed = (await crm
            .getContact({ contactId: C1 }, { headers, timeoutMs: 5_000 })
            .catch((error: unknown) => error)) as ConnectError;
          expect(failed).toBeInstanceOf(ConnectError);
          expect(failed.code).toBe(Code.Unavailable);
        }
        reply = wire;
        expect((await crm.getContact({ contactId: C1 }, { headers, timeoutMs: 5_000 })).contact?.id).toBe(C1);
      }
    } finally {
      raw.close();
    }
  });

  it("answers garbage request bodies with a Connect error, and keeps serving", async () => {
    const next = random(5);
    for (let round = 0; round < 40; round++) {
      const garbage = bytes(next, below(next, 200));
      const response = await fetch(`${server.url}/voiceops.crm.v1.CrmService/GetContact`, {
        method: "POST",
        headers: {
          "content-type": "application/proto",
          "connect-protocol-version": "1",
          "x-internal-token": TOKEN,
          ...headers,
        },
        body: garbage,
      });
      const text = await response.text();
      if (response.status !== 200) {
        expect(response.headers.get("content-type")).toBe("application/json");
        expect(JSON.parse(text)).toHaveProperty("code");
      }
    }
    const crm = createClient(
      CrmService,
      connectUnaryTransport(server.url, { fallback: () => createGrpcTransport({ baseUrl: server.url }) }),
    );
    expect((await crm.getContact({ contactId: C2 }, { headers })).contact?.id).toBe(C2);
  });

  it("survives requests cut short: a body shorter than its length, a head never finished", async () => {
    const { port } = new URL(server.url);
    for (const request of [
      "POST /voiceops.crm.v1.CrmService/GetContact HTTP/1.1\r\nhost: x\r\ncontent-type: application/proto\r\ncontent-length: 100\r\n\r\nabc",
      "POST /voiceops.crm.v1.CrmService/GetContact HTTP/1.1\r\nhost: x\r\ncontent-type: appl",
      "POST /voiceops.crm.v1.CrmService/GetContact HTTP/1.1\r\nhost: x\r\ncontent-type: application/proto\r\ntransfer-encoding: chunked\r\n\r\n5\r\nab",
    ]) {
      await new Promise<void>((resolve) => {
        const socket = net.connect(Number(port), "127.0.0.1", () => socket.end(request));
        socket.on("close", () => resolve());
        socket.on("error", () => resolve());
        socket.resume();
      });
    }
    const crm = createClient(
      CrmService,
      connectUnaryTransport(server.url, { fallback: () => createGrpcTransport({ baseUrl: server.url }) }),
    );
    expect((await crm.getContact({ contactId: C3 }, { headers })).contact?.id).toBe(C3);
  });
});

/** A backend message: its type, then its length (counting itself), then its body. */
function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, "latin1");
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

function dataRowMessage(values: (string | null)[]): Buffer {
  const parts: Buffer[] = [Buffer.from([values.length >> 8, values.length & 0xff])];
  for (const value of values) {
    const length = Buffer.alloc(4);
    if (value === null) {
      length.writeInt32BE(-1);
      parts.push(length);
    } else {
      const text = Buffer.from(value, "utf8");
      length.writeInt32BE(text.length);
      parts.push(length, text);
    }
  }
  return message("D", Buffer.concat(parts));
}

describe("the PGlite replies reader", () => {
  const fields = [
    { name: "id", dataTypeID: 25 },
    { name: "n", dataTypeID: 23 },
  ];
  const parsers = { 23: (text: string) => Number(text) };
  const replies = Buffer.concat([
    message("2", Buffer.alloc(0)),
    dataRowMessage(["a", "1"]),
    dataRowMessage(["b", null]),
    message("C", Buffer.from("SELECT 2\0")),
    message("Z", Buffer.from("I")),
  ]);

  it("reads well-formed replies", () => {
    expect(readReplies(replies, false, fields, parsers)).toEqual({
      rows: [
        { id: "a", n: 1 },
        { id: "b", n: null },
      ],
      affectedRows: 0,
    });
  });

  it("answers truncated, corrupted and random replies with an Error or a result, and always ends", () => {
    const outcomes = (input: Buffer) => {
      try {
        readReplies(input, false, fields, parsers);
      } catch (error) {
        expect(error).toBeInstanceOf(Error);
      }
    };
    for (let at = 0; at < replies.length; at++) outcomes(replies.subarray(0, at));
    const next = random(6);
    for (let round = 0; round < 500; round++) {
      const mutated = Buffer.from(replies);
      for (let i = 1 + below(next, 3); i > 0; i--) mutated[below(next, mutated.length)] = below(next, 256);
      outcomes(mutated);
      outcomes(bytes(next, below(next, 200)));
    }
    // An ErrorResponse whose fields never end.
    outcomes(Buffer.concat([message("E", Buffer.from("SERROR\0C2", "latin1")), message("Z", Buffer.from("I"))]));
  });
});
