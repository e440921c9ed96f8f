import type { Readable } from "node:stream";

/**
 * Where large binary objects live (call recordings, uploaded files): files under DATA_DIR, or
 * S3 and S3-compatible stores. Objects are streamed in and out, never held whole in memory.
 */
export interface ObjectStore {
  readonly kind: string;
  /** Streams `body` into the object `key`; a partial object never remains after a failure. */
  put(key: string, body: Readable, options: PutOptions): Promise<{ bytes: number }>;
  /** The object's bytes; ObjectNotFoundError when there is none. */
  get(key: string): Promise<StoredObject>;
  /** Removes the object; removing a missing object is not an error. */
  delete(key: string): Promise<void>;
  /** A URL that downloads the object without credentials until it expires. */
  signedUrl(key: string, ttlSeconds: number): Promise<{ url: string; expiresAt: Date }>;
}

export interface PutOptions {
  contentType: string;
  /** Stop with ObjectTooLargeError once more bytes than this arrive. */
  maxBytes?: number;
}

export interface StoredObject {
  body: Readable;
  contentType: string;
  bytes: number;
}

export class ObjectTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`object larger than ${maxBytes} bytes`);
    this.name = "ObjectTooLargeError";
  }
}

export class ObjectNotFoundError extends Error {
  constructor(readonly key: string) {
    super("object not found");
    this.name = "ObjectNotFoundError";
  }
}

const KEY = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

/** Keys are relative paths of plain segments: no "..", no leading "/", nothing to escape. */
export function assertObjectKey(key: string): void {
  if (key.length > 512 || !KEY.test(key) || key.split("/").some((segment) => segment === "." || segment === "..")) {
    throw new Error(`invalid object key ${JSON.stringify(key)}`);
  }
}
