import { Readable } from "node:stream";
import type { S3Client } from "@aws-sdk/client-s3";
import type { Clock } from "../clock.js";
import { byteLimit } from "./file-store.js";
import { assertObjectKey, ObjectNotFoundError, type ObjectStore, type PutOptions, type StoredObject } from "./store.js";

interface S3StoreOptions {
  bucket: string;
  /** Folder of the bucket the objects live under ("" for the bucket's root). */
  prefix: string;
  region: string;
  /** An S3-compatible server's URL (addressed path-style); unset = AWS S3 itself. */
  endpoint?: string;
  /** Unset: the SDK's default credential chain (environment, profile, instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  clock: Clock;
}

/** Part size of multipart uploads: the most of an upload held in memory at once, per part in flight. */
const PART_BYTES = 5 * 1024 * 1024;

/** Longest lifetime SigV4 allows a presigned URL. */
const MAX_URL_SECONDS = 7 * 24 * 3600;

/** The AWS SDK, loaded on first use: a process on the file store never pays for loading it. */
async function loadSdk() {
  const [s3, storage, presigner] = await Promise.all([
    import("@aws-sdk/client-s3"),
    import("@aws-sdk/lib-storage"),
    import("@aws-sdk/s3-request-presigner"),
  ]);
  return { ...s3, Upload: storage.Upload, getSignedUrl: presigner.getSignedUrl };
}

type Sdk = Awaited<ReturnType<typeof loadSdk>>;

function notFound(sdk: Sdk, error: unknown): boolean {
  return (
    error instanceof sdk.NoSuchKey ||
    (error instanceof sdk.S3ServiceException && (error.name === "NotFound" || error.$metadata.httpStatusCode === 404))
  );
}

/**
 * Objects in S3 or any S3-compatible store. Uploads are streamed in parts (lib-storage), so at
 * most a few parts of a large object are in memory; a failed or oversized upload is aborted and
 * leaves no object. Download URLs are presigned (SigV4, @aws-sdk/s3-request-presigner).
 */
export class S3ObjectStore implements ObjectStore {
  readonly kind = "s3";
  private connection: Promise<{ sdk: Sdk; client: S3Client }> | undefined;

  constructor(private readonly options: S3StoreOptions) {}

  private connect(): Promise<{ sdk: Sdk; client: S3Client }> {
    this.connection ??= loadSdk().then((sdk) => ({
      sdk,
      client: new sdk.S3Client({
        region: this.options.region,
        endpoint: this.options.endpoint,
        forcePathStyle: this.options.endpoint !== undefined,
        credentials: this.options.credentials,
      }),
    }));
    return this.connection;
  }

  private location(key: string): { Bucket: string; Key: string } {
    assertObjectKey(key);
    return { Bucket: this.options.bucket, Key: this.options.prefix ? `${this.options.prefix}/${key}` : key };
  }

  async put(key: string, body: Readable, options: PutOptions): Promise<{ bytes: number }> {
    const location = this.location(key);
    const { sdk, client } = await this.connect();
    const counted = { bytes: 0 };
    const limited = byteLimit(options.maxBytes, counted);
    let failure: unknown;
    limited.on("error", (error) => {
      failure ??= error;
    });
    body.on("error", (error) => limited.destroy(error));
    body.pipe(limited);
    const upload = new sdk.Upload({
      client,
      params: { ...location, Body: limited, ContentType: options.contentType },
      partSize: PART_BYTES,
      queueSize: 2,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (error) {
      // A multipart upload is aborted by the SDK; a single-part one was never stored.
      body.unpipe(limited);
      body.resume();
      throw failure ?? error;
    }
    return { bytes: counted.bytes };
  }

  async get(key: string): Promise<StoredObject> {
    const location = this.location(key);
    const { sdk, client } = await this.connect();
    try {
      const result = await client.send(new sdk.GetObjectCommand(location));
      const body = result.Body;
      if (!(body instanceof Readable)) throw new Error("S3 answered a body that is not a stream");
      return {
        body,
        contentType: result.ContentType ?? "application/octet-stream",
        bytes: Number(result.ContentLength ?? 0),
      };
    } catch (error) {
      if (notFound(sdk, error)) throw new ObjectNotFoundError(key);
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    const location = this.location(key);
    const { sdk, client } = await this.connect();
    try {
      await client.send(new sdk.DeleteObjectCommand(location));
    } catch (error) {
      if (!notFound(sdk, error)) throw error;
    }
  }

  async signedUrl(key: string, ttlSeconds: number): Promise<{ url: string; expiresAt: Date }> {
    const seconds = Math.min(Math.max(1, Math.floor(ttlSeconds)), MAX_URL_SECONDS);
    const location = this.location(key);
    const { sdk, client } = await this.connect();
    const signingDate = this.options.clock.now();
    const url = await sdk.getSignedUrl(client, new sdk.GetObjectCommand(location), { expiresIn: seconds, signingDate });
    return { url, expiresAt: new Date(signingDate.getTime() + seconds * 1000) };
  }

  /** Closes the SDK's connections (tests and shutdown). */
  async close(): Promise<void> {
    if (this.connection) (await this.connection).client.destroy();
  }
}
