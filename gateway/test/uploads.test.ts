import type { AddressInfo } from "node:net";
import http from "node:http";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { text } from "node:stream/consumers";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FileObjectStore, ManualClock, UrlSigner } from "@voiceops/platform";
import { testEnv } from "@voiceops/platform/testing";
import { gatewayErrors, refusalAnswer } from "../src/errors/index.js";
import { startSystem, type RunningSystem } from "../src/system.js";
import type { Route, UploadSpec } from "../src/transcoder/routes.js";
import { isUploadRequest, receiveUpload, UploadRefused } from "../src/transcoder/upload.js";

// The upload mechanism on its own: a small server whose one route receives a file the way an
// upload route of the gateway does, into a real file object store.
describe("upload routes", () => {
  const root = mkdtempSync(join(tmpdir(), "uploads-test-"));
  const store = new FileObjectStore({
    root,
    signer: new UrlSigner("s"),
    clock: new ManualClock("2026-01-01T00:00:00Z"),
    publicUrl: () => "http://127.0.0.1",
  });
  const spec = {
    maxBytes: 1000,
    contentTypes: ["text/csv", "audio/*"],
    extensions: [".md"],
    multipart: true,
    raw: true,
    formFields: [],
  } as unknown as UploadSpec;
  const route = { template: "/upload", body: "*", upload: spec } as unknown as Route;
  let server: http.Server;
  let url: string;

  beforeAll(async () => {
    const app = express();
    app.post("/upload", (req, res) => {
      if (!isUploadRequest(route, req)) return res.status(200).json({ json: true });
      receiveUpload(route, req, store, "org-1").then(
        async (upload) => {
          const stored = await store.get(upload.file?.objectKey ?? "");
          res.json({
            ...upload.fields,
            key: upload.file?.objectKey,
            type: upload.file?.contentType,
            filename: upload.file?.filename,
            bytes: Number(upload.file?.bytes),
            content: await text(stored.body),
          });
        },
        (error: unknown) =>
          res.status(error instanceof UploadRefused ? error.status : 500).json({ detail: String(error) }),
      );
    });
    server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/upload`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(root, { recursive: true, force: true });
  });

  const storedFiles = () =>
    readdirSync(root, { recursive: true, withFileTypes: true }).filter(
      (e) => e.isFile() && !e.name.endsWith(".meta.json"),
    ).length;

  function form(parts: Record<string, string | Blob>, filename = "list.csv"): FormData {
    const data = new FormData();
    for (const [name, value] of Object.entries(parts)) {
      if (typeof value === "string") data.append(name, value);
      else data.append(name, value, filename);
    }
    return data;
  }

  it("leaves a JSON body to the JSON decoder", async () => {
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(await res.json()).toEqual({ json: true });
  });

  it("stores a raw body of an accepted type", async () => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "text/csv; charset=utf-8" },
      body: "phone_number\n+15550100000\n",
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { key: string };
    expect(body).toMatchObject({ type: "text/csv", bytes: 26, content: "phone_number\n+15550100000\n" });
    expect(body.key).toMatch(/^uploads\/org-1\/[0-9a-f-]{36}$/);
  });

  it("takes the file part and the other fields of a form", async () => {
    const res = await fetch(url, {
      method: "POST",
      body: form({ title: "Prices", file: new Blob(["# Prices"], { type: "text/markdown" }) }, "prices.md"),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      title: "Prices",
      filename: "prices.md",
      type: "text/markdown",
      bytes: 8,
      content: "# Prices",
    });
  });

  it("refuses other types with 415 and stores nothing", async () => {
    const before = storedFiles();
    expect(
      (await fetch(url, { method: "POST", headers: { "content-type": "application/pdf" }, body: "%PDF" })).status,
    ).toBe(415);
    expect(
      (await fetch(url, { method: "POST", body: form({ file: new Blob(["x"], { type: "image/png" }) }, "x.png") }))
        .status,
    ).toBe(415);
    expect(storedFiles()).toBe(before);
  });

  it("refuses a file over the limit with 413, declared or streamed, and stores nothing", async () => {
    const before = storedFiles();
    expect(
      (await fetch(url, { method: "POST", headers: { "content-type": "audio/wav" }, body: "x".repeat(1001) })).status,
    ).toBe(413);
    const chunks = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 5; i++) controller.enqueue(new TextEncoder().encode("y".repeat(400)));
        controller.close();
      },
    });
    const streamed = await fetch(url, {
      method: "POST",
      headers: { "content-type": "audio/wav" },
      body: chunks,
      duplex: "half",
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(
      (await fetch(url, { method: "POST", body: form({ file: new Blob(["z".repeat(1500)], { type: "text/csv" }) }) }))
        .status,
    ).toBe(413);
    expect(storedFiles()).toBe(before);
  });

  it("needs the file part in a form", async () => {
    const res = await fetch(url, { method: "POST", body: form({ title: "no file" }) });
    expect(res.status).toBe(422);
  });
});

describe("GET /files: signed downloads of the file store", () => {
  const clock = new ManualClock(new Date());
  let system: RunningSystem;

  beforeAll(async () => {
    system = await startSystem({ env: testEnv(), inMemory: true, clock });
  });
  afterAll(async () => {
    await system?.stop();
  });

  it("serves the bytes to a signed URL until it expires, and refuses tampering", async () => {
    const { Readable } = await import("node:stream");
    await system.objects.put("recordings/test/a.wav", Readable.from([Buffer.from("RIFF1234")]), {
      contentType: "audio/wav",
    });
    const { url } = await system.objects.signedUrl("recordings/test/a.wav", 60);
    expect(url.startsWith(`${system.url}/files/`)).toBe(true);
    const ok = await fetch(url);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toBe("audio/wav");
    expect(await ok.text()).toBe("RIFF1234");

    const tampered = new URL(url);
    tampered.searchParams.set("expires", String(Number(tampered.searchParams.get("expires")) + 3600));
    expect((await fetch(tampered)).status).toBe(403);
    expect((await fetch(url.replace("a.wav", "b.wav"))).status).toBe(403);
    expect((await fetch(`${system.url}/files/recordings/test/a.wav`)).status).toBe(403);

    const { url: missing } = await system.objects.signedUrl("recordings/test/none.wav", 60);
    expect((await fetch(missing)).status).toBe(404);

    clock.advance(61_000);
    const expired = await fetch(url);
    expect(expired.status).toBe(403);
    expect(await expired.json()).toEqual(refusalAnswer(gatewayErrors.FILE_LINK_EXPIRED()).body);
  });
});
