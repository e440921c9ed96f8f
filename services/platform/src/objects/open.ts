import { join } from "node:path";
import type { Clock } from "../clock.js";
import { ConfigError, envOptional, envString, envUrl } from "../config.js";
import { FileObjectStore } from "./file-store.js";
import { S3ObjectStore } from "./s3-store.js";
import { UrlSigner } from "./signing.js";
import type { ObjectStore } from "./store.js";

type Env = Record<string, string | undefined>;

interface ObjectStoreSettings {
  dataDir: string;
  /** Secret shared by every component of the environment (signs file URLs). */
  internalToken: string;
  clock: Clock;
  /** Public base URL of the gateway, when only known once it listens (embedded mode). */
  publicUrl?: () => string;
}

/** The file store's URL signer; the gateway verifies with the same one. */
export function fileUrlSigner(internalToken: string): UrlSigner {
  return new UrlSigner(internalToken);
}

const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** OBJECT_STORE_URL=s3://bucket[/prefix], with S3_ENDPOINT, S3_REGION and the AWS_* credentials. */
function openS3Store(url: string, settings: ObjectStoreSettings, env: Env): S3ObjectStore {
  const parsed = new URL(url);
  const bucket = parsed.hostname;
  if (!BUCKET.test(bucket))
    throw new ConfigError("OBJECT_STORE_URL", `names no valid bucket (s3://bucket[/prefix]), got "${url}"`);
  const prefix = decodeURIComponent(parsed.pathname).replace(/^\/+|\/+$/g, "");
  if (prefix !== "" && !/^[A-Za-z0-9._/-]+$/.test(prefix))
    throw new ConfigError("OBJECT_STORE_URL", `has an unusable prefix "${prefix}"`);
  const accessKeyId = envOptional("AWS_ACCESS_KEY_ID", env);
  const secretAccessKey = envOptional("AWS_SECRET_ACCESS_KEY", env);
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    throw new ConfigError(
      accessKeyId === undefined ? "AWS_ACCESS_KEY_ID" : "AWS_SECRET_ACCESS_KEY",
      "is required with the other AWS credential",
    );
  }
  return new S3ObjectStore({
    bucket,
    prefix,
    region: envString("S3_REGION", envString("AWS_REGION", "us-east-1", env), env),
    endpoint: envUrl("S3_ENDPOINT", ["http:", "https:"], env),
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
    clock: settings.clock,
  });
}

/**
 * OBJECT_STORE_URL unset: files under DATA_DIR/objects, served by the gateway at /files with
 * URLs signed for PUBLIC_URL (default http://127.0.0.1:PORT). s3://bucket[/prefix]: S3 or an
 * S3-compatible store (S3_ENDPOINT), with presigned URLs.
 */
export function openObjectStore(settings: ObjectStoreSettings, env: Env): ObjectStore {
  const url = envUrl("OBJECT_STORE_URL", ["s3:"], env);
  if (url !== undefined) return openS3Store(url, settings, env);
  const configured = envOptional("PUBLIC_URL", env);
  const fallback = `http://127.0.0.1:${envString("PORT", "8080", env)}`;
  return new FileObjectStore({
    root: join(settings.dataDir, "objects"),
    signer: fileUrlSigner(settings.internalToken),
    clock: settings.clock,
    publicUrl: () => configured ?? (settings.publicUrl?.() || fallback),
  });
}
