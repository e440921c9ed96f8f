import type { AddressInfo } from "node:net";
import { request } from "node:http";
import { gzipSync } from "node:zlib";
import express, { type NextFunction, type Request, type Response } from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { plainJsonBody } from "../src/mcp/body.js";

// plainJsonBody reads the plain kind of /mcp body itself and leaves any other to express.json:
// for every body, over real HTTP, it must end as express.json alone does (the same body read,
// or an error of the same kind).
describe("plainJsonBody", () => {
  const LIMIT = 1024 * 1024;
  let server: ReturnType<ReturnType<typeof express>["listen"]>;
  let port = 0;

  beforeAll(async () => {
    const app = express();
    const answer = (req: Request, res: Response) => res.json({ body: req.body ?? null });
    const errors = (error: { type?: string }, _req: Request, res: Response, _next: NextFunction) =>
      res.status(400).json({ error: error.type ?? "untyped" });
    app.post("/library", express.json({ limit: LIMIT }), answer, errors);
    app.post("/plain", plainJsonBody(express.json({ limit: LIMIT })), answer, errors);
    await new Promise<void>((resolve) => {
      server = app.listen(0, "127.0.0.1", () => resolve());
    });
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** Posts raw bytes with exactly these headers (fetch would add or fix some). */
  const post = (path: string, headers: Record<string, string>, body: Buffer) =>
    new Promise<string>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port, path, method: "POST", headers }, (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk.toString()));
        res.on("end", () => resolve(`${res.statusCode} ${text}`));
      });
      req.on("error", reject);
      req.end(body);
    });

  const call =
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_contacts","arguments":{"query":"Ann"}}}';
  const bodies: [string, Buffer][] = [
    ["a call", Buffer.from(call)],
    ["a batch", Buffer.from(`[${call},${call}]`)],
    ["leading white space", Buffer.from(` \n\t ${call}`)],
    ["a byte-order mark", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(call)])],
    ["non-ASCII text", Buffer.from('{"name":"Zoë Ünal — 東京"}')],
    ["empty", Buffer.alloc(0)],
    ["white space only", Buffer.from("   ")],
    ["a number", Buffer.from("42")],
    ["a string", Buffer.from('"text"')],
    ["null", Buffer.from("null")],
    ["broken JSON", Buffer.from("{not json")],
    ["trailing garbage", Buffer.from(`${call}x`)],
    ["invalid UTF-8", Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
    ["over the limit", Buffer.from(JSON.stringify({ padding: "x".repeat(LIMIT) }))],
  ];
  const types = [
    "application/json",
    "Application/JSON",
    "application/json; charset=utf-8",
    'application/json;charset="UTF-8"',
    "application/json; charset=utf-16",
    "application/json; charset=latin1",
    "application/json; foo=bar",
    "text/plain",
  ];

  it("reads every body as express.json does, whatever its Content-Type", async () => {
    for (const [name, body] of bodies) {
      for (const type of types) {
        const headers = { "content-type": type, "content-length": String(body.length) };
        const library = await post("/library", headers, body);
        expect(await post("/plain", headers, body), `${name}, ${type}`).toBe(library);
      }
    }
  });

  it("leaves a compressed or chunked body to express.json, which reads it", async () => {
    const body = Buffer.from(call);
    const gzipped = gzipSync(body);
    const compressed = {
      "content-type": "application/json",
      "content-encoding": "gzip",
      "content-length": String(gzipped.length),
    };
    expect(await post("/plain", compressed, gzipped)).toBe(await post("/library", compressed, gzipped));
    expect(await post("/plain", compressed, gzipped)).toContain('"search_contacts"');
    const chunked = { "content-type": "application/json", "transfer-encoding": "chunked" };
    expect(await post("/plain", chunked, body)).toBe(await post("/library", chunked, body));
    expect(await post("/plain", chunked, body)).toContain('"search_contacts"');
  });
});
