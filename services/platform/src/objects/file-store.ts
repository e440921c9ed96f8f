import { randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Transform, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Clock } from "../clock.js";
import {
  assertObjectKey,
  ObjectNotFoundError,
  ObjectTooLargeError,
  type ObjectStore,
  type PutOptions,
  type StoredObject,
} from "./store.js";
import type { UrlSigner } from "./signing.js";

/** Counts bytes on their way through and fails once there are more than `max`. */
export function byteLimit(max: number | undefined, counted: { bytes: number }): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      counted.bytes += chunk.length;
      if (max !== undefined && counted.bytes > max) return done(new ObjectTooLargeError(max));
      done(null, chunk);
    },
  });
}

interface FileStoreOptions {
  /** Folder holding the objects. */
  root: string;
  signer: UrlSigner;
  clock: Clock;
  /** Public base URL of the gateway that serves /files (read when a URL is made). */
  publicUrl: () => string;
}

/**
 * Objects as files under one folder (embedded mode and single-node installs); the gateway serves
 * them at /files/<key> to holders of a signed, expiring URL. Each object has a small JSON
 * sidecar with its media type. Writes go to a temporary file renamed into place, so a reader
 * never sees a partial object.
 */
export class FileObjectStore implements ObjectStore {
  readonly kind = "file";

  constructor(private readonly options: FileStoreOptions) {}

  private path(key: string): string {
    assertObjectKey(key);
    return join(this.options.root, key);
  }

  async put(key: string, body: Readable, options: PutOptions): Promise<{ bytes: number }> {
    const path = this.path(key);
    await mkdir(dirname(path), { recursive: true });
    const temporary = `${path}.${randomBytes(6).toString("hex")}.partial`;
    const counted = { bytes: 0 };
    const file = createWriteStream(temporary);
    try {
      await pipeline(body, byteLimit(options.maxBytes, counted), file);
      await writeFile(`${path}.meta.json`, JSON.stringify({ contentType: options.contentType, bytes: counted.bytes }));
      await rename(temporary, path);
    } catch (error) {
      // A copy that fails at once (the body cut off) ends before the file has been opened; it is
      // created when the open completes, so it is removed once the stream has closed.
      if (!file.closed) await new Promise<void>((resolve) => file.once("close", () => resolve()));
      await rm(temporary, { force: true });
      throw error;
    }
    return { bytes: counted.bytes };
  }

  async get(key: string): Promise<StoredObject> {
    const path = this.path(key);
    let size: number;
    try {
      size = (await stat(path)).size;
    } catch {
      throw new ObjectNotFoundError(key);
    }
    const meta = JSON.parse(await readFile(`${path}.meta.json`, "utf8").catch(() => "{}")) as { contentType?: string };
    return { body: createReadStream(path), contentType: meta.contentType ?? "application/octet-stream", bytes: size };
  }

  async delete(key: string): Promise<void> {
    const path = this.path(key);
    await rm(path, { force: true });
    await rm(`${path}.meta.json`, { force: true });
  }

  async signedUrl(key: string, ttlSeconds: number): Promise<{ url: string; expiresAt: Date }> {
    assertObjectKey(key);
    const expires = Math.floor(this.options.clock.now().getTime() / 1000) + ttlSeconds;
    const signature = this.options.signer.sign(key, expires);
    const path = key.split("/").map(encodeURIComponent).join("/");
    return {
      url: `${this.options.publicUrl().replace(/\/$/, "")}/files/${path}?expires=${expires}&signature=${signature}`,
      expiresAt: new Date(expires * 1000),
    };
  }
}
