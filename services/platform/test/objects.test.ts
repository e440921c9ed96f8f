import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { text } from "node:stream/consumers";
import { afterAll, describe, expect, it } from "vitest";
import { FileObjectStore, ManualClock, ObjectNotFoundError, ObjectTooLargeError, UrlSigner } from "../src/index.js";
import { assertObjectKey } from "../src/objects/store.js";

const root = mkdtempSync(join(tmpdir(), "objects-test-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name);
}

describe("file object store", () => {
  const clock = new ManualClock("2026-03-01T12:00:00Z");
  const store = new FileObjectStore({
    root,
    signer: new UrlSigner("secret"),
    clock,
    publicUrl: () => "http://127.0.0.1:9999/",
  });

  it("streams an object in and out with its media type", async () => {
    const { bytes } = await store.put("calls/org-1/a.wav", Readable.from([Buffer.from("RIFF"), Buffer.from("data")]), {
      contentType: "audio/wav",
    });
    expect(bytes).toBe(8);
    const object = await store.get("calls/org-1/a.wav");
    expect(object.contentType).toBe("audio/wav");
    expect(object.bytes).toBe(8);
    expect(await text(object.body)).toBe("RIFFdata");
  });

  it("refuses an object over the limit and leaves nothing behind", async () => {
    const before = filesUnder(root).length;
    const body = Readable.from([Buffer.alloc(600), Buffer.alloc(600)]);
    await expect(
      store.put("big/one.bin", body, { contentType: "application/octet-stream", maxBytes: 1000 }),
    ).rejects.toBeInstanceOf(ObjectTooLargeError);
    await expect(store.get("big/one.bin")).rejects.toBeInstanceOf(ObjectNotFoundError);
    expect(filesUnder(root).length).toBe(before);
  });

  it("leaves no partial file when the body fails before the file is open", async () => {
    const dir = mkdtempSync(join(root, "failed-"));
    const failing = new FileObjectStore({ root: dir, signer: new UrlSigner("secret"), clock, publicUrl: () => "" });
    // A body cut off as the copy starts (a client that hung up) fails the copy while the file
    // may still be opening.
    for (let i = 0; i < 40; i++) {
      const body = new PassThrough();
      body.write(Buffer.alloc(100));
      const put = failing.put(`uploads/org-1/f${i}`, body, { contentType: "text/csv" });
      setImmediate(() => body.destroy());
      await expect(put).rejects.toThrow();
    }
    // A file opened after its put failed would appear only then: look again a moment later.
    expect(filesUnder(dir)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(filesUnder(dir)).toEqual([]);
  });

  it("deletes idempotently", async () => {
    await store.put("d/x", Readable.from(["x"]), { contentType: "text/plain" });
    await store.delete("d/x");
    await store.delete("d/x");
    await expect(store.get("d/x")).rejects.toBeInstanceOf(ObjectNotFoundError);
  });

  it("signs URLs with an expiry", async () => {
    const { url, expiresAt } = await store.signedUrl("calls/org-1/a.wav", 900);
    expect(expiresAt.toISOString()).toBe("2026-03-01T12:15:00.000Z");
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:9999\/files\/calls\/org-1\/a\.wav\?expires=\d+&signature=[\w-]+$/);
  });

  it("refuses keys that could leave the store", () => {
    for (const key of ["../etc/passwd", "/abs", "a/../b", "a//b", "", "a/./b", "x\u0000y"])
      expect(() => assertObjectKey(key), key).toThrow();
    expect(() => assertObjectKey("uploads/0192-ab/file_1.csv")).not.toThrow();
  });
});

describe("URL signer", () => {
  const signer = new UrlSigner("secret");
  const now = new Date("2026-03-01T12:00:00Z");
  const expires = now.getTime() / 1000 + 60;

  it("accepts its own signature until the expiry", () => {
    const signature = signer.sign("k/1", expires);
    expect(signer.verify("k/1", expires, signature, now)).toBe("ok");
    expect(signer.verify("k/1", expires, signature, new Date((expires + 1) * 1000))).toBe("expired");
  });

  it("refuses a changed key, expiry, signature or secret", () => {
    const signature = signer.sign("k/1", expires);
    expect(signer.verify("k/2", expires, signature, now)).toBe("invalid");
    expect(signer.verify("k/1", expires + 3600, signature, now)).toBe("invalid");
    expect(signer.verify("k/1", expires, `${signature.slice(0, -1)}A`, now)).not.toBe("ok");
    expect(new UrlSigner("other").verify("k/1", expires, signature, now)).toBe("invalid");
  });
});
