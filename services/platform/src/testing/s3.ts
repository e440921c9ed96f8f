import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The credentials the S3-compatible test server accepts. */
const TEST_S3_CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" } as const;

export interface TestS3Server {
  /** Endpoint URL, e.g. http://127.0.0.1:41234. */
  endpoint: string;
  bucket: string;
  /** Environment of a system that keeps its objects in this server's bucket under `prefix`. */
  env(prefix?: string): Record<string, string>;
  stop(): Promise<void>;
}

/** RFC 3986 encoding, as SigV4 canonical query strings use it. */
const encode = (text: string) =>
  encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data).digest();

/**
 * Checks the SigV4 signature of a presigned (query-signed) request as S3 does: the canonical
 * request is rebuilt from the method, path, query (all but the signature) and signed headers,
 * and signed with the secret of the credential it names. Expiry is left to the server.
 */
function presignedSignatureValid(req: http.IncomingMessage, secrets: Record<string, string>): boolean {
  const url = new URL(req.url ?? "/", "http://placeholder");
  const query = url.searchParams;
  const signature = query.get("X-Amz-Signature") ?? "";
  const credential = query.get("X-Amz-Credential") ?? "";
  const date = query.get("X-Amz-Date") ?? "";
  const [accessKeyId = "", ...scopeParts] = credential.split("/");
  const secret = secrets[accessKeyId];
  if (!secret || query.get("X-Amz-Algorithm") !== "AWS4-HMAC-SHA256" || scopeParts.length !== 4) return false;
  const [day = "", region = "", service = "", terminator = ""] = scopeParts;
  const canonicalQuery = [...query.entries()]
    .filter(([key]) => key !== "X-Amz-Signature")
    .map(([key, value]) => [encode(key), encode(value)] as const)
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([key, value]) => `${key}=${value}`)
    .join("&");
  const signedHeaders = (query.get("X-Amz-SignedHeaders") ?? "").split(";").filter(Boolean);
  const canonicalHeaders = signedHeaders.map((name) => `${name}:${String(req.headers[name] ?? "").trim()}\n`).join("");
  const rawPath = (req.url ?? "/").split("?", 1)[0] ?? "/";
  const canonicalRequest = [
    req.method,
    rawPath,
    canonicalQuery,
    canonicalHeaders,
    signedHeaders.join(";"),
    "UNSIGNED-PAYLOAD",
  ].join("\n");
  const scope = `${day}/${region}/${service}/${terminator}`;
  const stringToSign = [
    "AWS4-HMAC-SHA256",
    date,
    scope,
    createHash("sha256").update(canonicalRequest).digest("hex"),
  ].join("\n");
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), service), terminator);
  const expected = Buffer.from(createHmac("sha256", key).update(stringToSign).digest("hex"));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * A real S3-compatible server (s3rver) on a loopback port, with one empty bucket, its data in a
 * temporary folder. s3rver checks the expiry of presigned URLs but not their SigV4 signature,
 * so the server checks that first, as S3 does, and refuses a tampered URL with 403.
 */
export async function startTestS3Server(bucket = "voiceops-test"): Promise<TestS3Server> {
  const { default: S3rver } = await import("s3rver");
  const directory = mkdtempSync(join(tmpdir(), "s3rver-"));
  const s3rver = new S3rver({ silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
  await s3rver.configureBuckets();
  const handle = s3rver.callback();
  const secrets = { [TEST_S3_CREDENTIALS.accessKeyId]: TEST_S3_CREDENTIALS.secretAccessKey };
  const server = http.createServer((req, res) => {
    const presigned = (req.url ?? "").includes("X-Amz-Signature=");
    if (presigned && !presignedSignatureValid(req, secrets)) {
      res.writeHead(403, { "content-type": "application/xml" });
      res.end(
        '<?xml version="1.0" encoding="UTF-8"?><Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match the signature you provided.</Message></Error>',
      );
      return;
    }
    handle(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint,
    bucket,
    env: (prefix = "") => ({
      OBJECT_STORE_URL: `s3://${bucket}${prefix ? `/${prefix}` : ""}`,
      S3_ENDPOINT: endpoint,
      S3_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: TEST_S3_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: TEST_S3_CREDENTIALS.secretAccessKey,
    }),
    async stop() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
