import http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { appServerClasses, fastPath } from "@voiceops/platform";
import { afterEach, describe, expect, it } from "vitest";
import { createPublicServer } from "../src/http/slow-clients.js";

const LIMITS = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, maxConnectionsPerClient: 0 };

describe("requests born with the Express app's prototypes (FAST_PATH part express)", () => {
  const servers: http.Server[] = [];
  afterEach(() => {
    for (const server of servers.splice(0)) server.close();
    born.length = 0;
  });

  /** Whether each request and response, before Express ran, already had the app's prototypes. */
  const born: boolean[] = [];

  async function serve(server: http.Server, app: express.Express): Promise<string> {
    server.prependListener("request", (req, res) => {
      born.push(Object.getPrototypeOf(req) === app.request && Object.getPrototypeOf(res) === app.response);
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  function itemsApp() {
    const app = express();
    app.set("trust proxy", true);
    app.set("json spaces", 0);
    const seen: unknown[] = [];
    app.get("/items/:id", (req, res) => {
      seen.push({
        ip: req.ip,
        query: req.query,
        sameApp: req.app === app,
        isNodeRequest: req instanceof http.IncomingMessage,
      });
      res.status(201).json({ id: req.params.id });
    });
    app.get("/boom", () => {
      throw new Error("boom");
    });
    return { app, seen };
  }

  it("gives Express nothing to change, and Express's request and response API works as before", async () => {
    const { app, seen } = itemsApp();
    const url = await serve(http.createServer(appServerClasses(app), app), app);
    const res = await fetch(`${url}/items/7?a=1`, { headers: { "x-forwarded-for": "203.0.113.9" } });
    expect(res.status).toBe(201);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await res.json()).toEqual({ id: "7" });
    expect(seen).toEqual([{ ip: "203.0.113.9", query: { a: "1" }, sameApp: true, isNodeRequest: true }]);
    expect((await fetch(`${url}/nothing`)).status).toBe(404);
    expect((await fetch(`${url}/boom`)).status).toBe(500);
    expect(born.splice(0)).toEqual([true, true, true]);
  });

  it("keeps what the app's prototypes carried (app-level overrides, req.app)", async () => {
    const app = express();
    (app.response as unknown as { hello: () => void }).hello = function (this: express.Response) {
      this.type("text/plain").send("hello");
    };
    app.get("/", (req, res) => {
      expect(req.app).toBe(app);
      (res as unknown as { hello: () => void }).hello();
    });
    const url = await serve(http.createServer(appServerClasses(app), app), app);
    expect(await (await fetch(url)).text()).toBe("hello");
    expect(born.splice(0)).toEqual([true]);
  });

  it("is what the gateway's public server uses, unless FAST_PATH leaves it out", async () => {
    const { app } = itemsApp();
    const url = await serve(createPublicServer(app, LIMITS), app);
    expect((await fetch(`${url}/items/1`)).status).toBe(201);
    expect(born.splice(0)).toEqual([fastPath("express")]);
  });
});
