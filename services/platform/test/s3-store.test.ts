import { Readable } from "node:stream";
import { text } from "node:stream/consumers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ConfigError,
  ManualClock,
  ObjectNotFoundError,
  ObjectTooLargeError,
  openObjectStore,
  systemClock,
} from "../src/index.js";
import { S3ObjectStore } from "../src/objects/s3-store.js";
import { startTestS3Server, type TestS3Server } from "../src/testing/index.js";

// The S3 object store against a real S3-compatible server on loopback, which checks SigV4
// signatures and the expiry of presigned URLs.

let s3: TestS3Server;
let store: S3ObjectStore;

beforeAll(async () => {
  s3 = await startTestS3Server();
  store = openObjectStore(
    { dataDir: "/nonexistent", internalToken: "t", clock: systemClock },
    s3.env("tenant-a"),
  ) as S3ObjectStore;
});
afterAll(async () => {
  await store?.close();
  await s3?.stop();
});

describe("S3 object store", () => {
  it("is chosen by OBJECT_STORE_URL=s3://bucket/prefix", () => {
    expect(store.kind).toBe("s3");
  });

  it("streams an object in and out with its media type, under the prefix", async () => {
    const { bytes } = await store.put("calls/org-1/a.wav", Readable.from([Buffer.from("RIFF"), Buffer.from("data")]), {
      contentType: "audio/wav",
    });
    expect(bytes).toBe(8);
    const object = await store.get("calls/org-1/a.wav");
    expect(object.contentType).toBe("audio/wav");
    expect(object.bytes).toBe(8);
    expect(await text(object.body)).toBe("RIFFdata");
    const other = openObjectStore(
      { dataDir: "/nonexistent", internalToken: "t", clock: systemClock },
      s3.env("tenant-b"),
    );
    await expect(other.get("calls/org-1/a.wav")).rejects.toBeInstanceOf(ObjectNotFoundError);
  });

  it("uploads an object larger than one part in parts", async () => {
    const part = Buffer.alloc(1024 * 1024, 7);
    const chunks = Array.from({ length: 6 }, () => part);
    const { bytes } = await store.put("big/six-mb.bin", Readable.from(chunks), {
      contentType: "application/octet-stream",
      maxBytes: 10 * 1024 * 1024,
    });
    expect(bytes).toBe(6 * 1024 * 1024);
    const object = await store.get("big/six-mb.bin");
    let total = 0;
    for await (const chunk of object.body) total += (chunk as Buffer).length;
    expect(total).toBe(6 * 1024 * 1024);
  });

  it("refuses an object over the limit and leaves nothing behind, small or multipart", async () => {
    await expect(
      store.put("big/small.bin", Readable.from([Buffer.alloc(600), Buffer.alloc(600)]), {
        contentType: "application/octet-stream",
        maxBytes: 1000,
      }),
    ).rejects.toBeInstanceOf(ObjectTooLargeError);
    await expect(store.get("big/small.bin")).rejects.toBeInstanceOf(ObjectNotFoundError);
    const part = Buffer.alloc(1024 * 1024, 1);
    await expect(
      store.put("big/over.bin", Readable.from(Array.from({ length: 8 }, () => part)), {
        contentType: "application/octet-stream",
        maxBytes: 6 * 1024 * 1024,
      }),
    ).rejects.toBeInstanceOf(ObjectTooLargeError);
    await expect(store.get("big/over.bin")).rejects.toBeInstanceOf(ObjectNotFoundError);
  });

  it("deletes idempotently", async () => {
    await store.put("d/x", Readable.from(["x"]), { contentType: "text/plain" });
    await store.delete("d/x");
    await store.delete("d/x");
    await expect(store.get("d/x")).rejects.toBeInstanceOf(ObjectNotFoundError);
  });

  it("presigns a URL that downloads the bytes, until it expires; a tampered URL is refused", async () => {
    await store.put("calls/org-1/signed.mp3", Readable.from([Buffer.from("ID3 audio bytes")]), {
      contentType: "audio/mpeg",
    });
    const { url, expiresAt } = await store.signedUrl("calls/org-1/signed.mp3", 900);
    expect(Math.abs(expiresAt.getTime() - (Date.now() + 900_000))).toBeLessThan(60_000);
    const ok = await fetch(url);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toBe("audio/mpeg");
    expect(await ok.text()).toBe("ID3 audio bytes");

    const tampered = new URL(url);
    const signature = tampered.searchParams.get("X-Amz-Signature") ?? "";
    tampered.searchParams.set("X-Amz-Signature", `${signature.slice(0, -1)}${signature.endsWith("0") ? "1" : "0"}`);
    expect((await fetch(tampered)).status).toBe(403);
    const longer = new URL(url);
    longer.searchParams.set("X-Amz-Expires", "604800");
    expect((await fetch(longer)).status).toBe(403);
    const otherKey = new URL(url.replace("signed.mp3", "a.wav"));
    expect((await fetch(otherKey)).status).toBe(403);

    // Signed an hour ago for 60 seconds: expired now.
    const past = new S3ObjectStore({
      bucket: s3.bucket,
      prefix: "tenant-a",
      region: "us-east-1",
      endpoint: s3.endpoint,
      credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
      clock: new ManualClock(new Date(Date.now() - 3_600_000)),
    });
    const expired = await past.signedUrl("calls/org-1/signed.mp3", 60);
    expect(expired.expiresAt.getTime()).toBeLessThan(Date.now());
    const refused = await fetch(expired.url);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain("expired");
    await past.close();
  });

  it("checks its settings at start-up", () => {
    const settings = { dataDir: "/x", internalToken: "t", clock: systemClock };
    expect(() => openObjectStore(settings, { OBJECT_STORE_URL: "s3://B_ad" })).toThrow(ConfigError);
    expect(() => openObjectStore(settings, { OBJECT_STORE_URL: "http://bucket" })).toThrow(ConfigError);
    expect(() => openObjectStore(settings, { OBJECT_STORE_URL: "s3://bucket", AWS_ACCESS_KEY_ID: "only-one" })).toThrow(
      /AWS_SECRET_ACCESS_KEY/,
    );
    expect(() => openObjectStore(settings, { OBJECT_STORE_URL: "s3://bucket", S3_ENDPOINT: "ftp://x" })).toThrow(
      /S3_ENDPOINT/,
    );
  });
});
