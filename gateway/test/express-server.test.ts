import type { AddressInfo } from "node:net";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { expressServer } from "../src/http/express-server.js";

describe("expressServer", () => {
  const servers: { close(): void }[] = [];
  afterEach(() => {
    for (const server of servers.splice(0)) server.close();
  });

  /** Whether each request, as it arrived (before Express ran), already had the app's prototypes. */
  const bornWithPrototypes: boolean[] = [];

  async function serve(app: express.Express): Promise<string> {
    const server = expressServer(app, { keepAliveTimeout: 5_000 });
    server.prependListener("request", (req, res) => {
      bornWithPrototypes.push(Object.getPrototypeOf(req) === app.request && Object.getPrototypeOf(res) === app.response);
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it("creates requests and responses with the app's own prototypes, so Express has nothing to swap", async () => {
    const app = express();
    app.set("trust proxy", true);
    let seen: { ip?: string; query?: unknown; sameApp: boolean } | undefined;
    app.get("/items/:id", (req, res) => {
      seen = {
        ip: req.ip,
        query: req.query,
        sameApp: req.app === app,
      };
      res.status(201).json({ id: req.params.id });
    });
    const url = await serve(app);
    const res = await fetch(`${url}/items/7?a=1`, { headers: { "x-forwarded-for": "203.0.113.9" } });
    expect(res.status).toBe(201);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await res.json()).toEqual({ id: "7" });
    expect(seen).toEqual({ ip: "203.0.113.9", query: { a: "1" }, sameApp: true });
    expect(bornWithPrototypes.splice(0)).toEqual([true]);
  });

  it("passes the server options on and keeps Express's own answers (404, errors)", async () => {
    const app = express();
    app.get("/boom", () => {
      throw new Error("boom");
    });
    const url = await serve(app);
    expect((await fetch(`${url}/nothing`)).status).toBe(404);
    expect((await fetch(`${url}/boom`)).status).toBe(500);
    const server = expressServer(app, { keepAliveTimeout: 1_234 });
    expect(server.keepAliveTimeout).toBe(1_234);
  });
});
