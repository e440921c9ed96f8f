import { create } from "@bufbuild/protobuf";
import busboy from "busboy";
import type { Request } from "express";
import { createHash, type Hash } from "node:crypto";
import { PassThrough, type Readable, type Transform } from "node:stream";
import { newId, ObjectTooLargeError, type ObjectStore } from "@voiceops/platform";
import { UploadedFileSchema, type UploadedFile } from "@voiceops/proto/voiceops/api/v1/upload_pb";
import { hashingStream } from "./idempotency.js";
import type { Route, UploadSpec } from "./routes.js";

// File uploads of routes that declare UploadRules: the body (raw, or the "file" part of a
// multipart form) is streamed into the object store while its bytes are counted, so a large
// file never sits in memory and an oversized one is cut off as soon as it passes the limit.

/** A refusal the gateway answers itself. */
export class UploadRefused extends Error {
  constructor(
    readonly status: 413 | 415 | 422,
    readonly detail: string,
    /** Where a 422 lies in the request. */
    readonly loc: string[] = ["body"],
  ) {
    super(detail);
  }
}

interface ReceivedUpload {
  file: UploadedFile | undefined;
  /** Other multipart parts, by name, as text. */
  fields: Record<string, string>;
}

/** Multipart framing allowed on top of the file itself before the declared length is refused. */
const MULTIPART_OVERHEAD = 64 * 1024;

function mediaType(header: string | undefined): string {
  return (header ?? "").split(";", 1)[0]?.trim().toLowerCase() ?? "";
}

function typeAccepted(spec: UploadSpec, type: string): boolean {
  return spec.contentTypes.some((accepted) =>
    accepted.endsWith("/*") ? type.startsWith(accepted.slice(0, -1)) : type === accepted,
  );
}

function extensionAccepted(spec: UploadSpec, filename: string): boolean {
  const name = filename.toLowerCase();
  return spec.extensions.some((ending) => name.endsWith(ending));
}

/** Whether the request carries its payload as a file for this route (not as JSON). */
export function isUploadRequest(route: Route, req: Request): boolean {
  if (!route.upload) return false;
  const type = mediaType(req.headers["content-type"]);
  if (type === "application/json" && route.body) return false;
  // A route without a JSON body takes only files: anything else is refused as a file.
  return type !== "" || !route.body;
}

function declaredLength(req: Request): number | undefined {
  const header = req.headers["content-length"];
  return header === undefined ? undefined : Number(header);
}

async function store(
  objects: ObjectStore,
  key: string,
  body: Readable,
  contentType: string,
  maxBytes: number,
): Promise<number> {
  try {
    return (await objects.put(key, body, { contentType, maxBytes })).bytes;
  } catch (error) {
    if (error instanceof ObjectTooLargeError) throw new UploadRefused(413, `File larger than ${maxBytes} bytes`);
    throw error;
  }
}

function uploaded(key: string, contentType: string, filename: string, bytes: number): UploadedFile {
  return create(UploadedFileSchema, { objectKey: key, contentType, filename, bytes: BigInt(bytes) });
}

/**
 * Receives the file of an upload route into the object store under a new key of the caller's
 * organization. Throws UploadRefused for a wrong type (415), a file over the limit (413) or a
 * form without its file (422); nothing stays stored after a refusal.
 */
export async function receiveUpload(
  route: Route,
  req: Request,
  objects: ObjectStore,
  orgId: string,
  digest?: Hash,
): Promise<ReceivedUpload> {
  const spec = route.upload;
  if (!spec) throw new Error(`${route.template} takes no upload`);
  const type = mediaType(req.headers["content-type"]);
  const key = `uploads/${orgId}/${newId()}`;
  const length = declaredLength(req);

  if (type === "multipart/form-data" && spec.multipart) {
    if (length !== undefined && length > spec.maxBytes + MULTIPART_OVERHEAD)
      throw new UploadRefused(413, `File larger than ${spec.maxBytes} bytes`);
    return receiveMultipart(spec, req, objects, key, digest);
  }
  if (spec.raw && typeAccepted(spec, type)) {
    if (length !== undefined && length > spec.maxBytes)
      throw new UploadRefused(413, `File larger than ${spec.maxBytes} bytes`);
    let body: Readable = req;
    if (digest) {
      digest.update(`raw\n${type}\n`);
      body = req.pipe(hashingStream(digest));
      req.on("error", (error) => body.destroy(error));
    }
    const bytes = await store(objects, key, body, type, spec.maxBytes);
    return { file: uploaded(key, type, "", bytes), fields: {} };
  }
  throw new UploadRefused(415, `Unsupported media type ${type || "(none)"}: send ${describeAccepted(spec, route)}`);
}

function describeAccepted(spec: UploadSpec, route: Route): string {
  const ways: string[] = [];
  if (route.body) ways.push("application/json");
  if (spec.raw) ways.push(...spec.contentTypes);
  if (spec.multipart) ways.push("multipart/form-data with a file part named file");
  return ways.join(", ");
}

/**
 * The multipart form's file into the store, its other parts as fields. With `digest`, the
 * form is hashed by its parts (names, values, the file's name, type and bytes), not by the
 * boundary a client picks anew for each request: a retry of the same form is the same request.
 */
function receiveMultipart(
  spec: UploadSpec,
  req: Request,
  objects: ObjectStore,
  key: string,
  digest: Hash | undefined,
): Promise<ReceivedUpload> {
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {};
    let file: Promise<UploadedFile> | undefined;
    let fileDigest: string | undefined;
    let failed = false;
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { files: 1, fields: 50, fieldSize: 64 * 1024, parts: 60 } });
    } catch {
      return reject(new UploadRefused(422, "Malformed multipart/form-data body"));
    }
    /** The file's bytes on their way to the store, while they are. */
    let body: Transform | undefined;
    // The refusal is answered once nothing of the file is left: the write is stopped (the store
    // removes its partial file) and a file already stored is deleted.
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      req.unpipe(parser);
      req.resume();
      body?.destroy();
      void (file ?? Promise.resolve())
        .catch(() => undefined)
        .then(() => objects.delete(key).catch(() => undefined))
        .finally(() => reject(error));
    };
    parser.on("file", (name, stream, info) => {
      if (name !== "file" || file || failed) {
        stream.resume();
        return;
      }
      const declared = (info.mimeType ?? "").toLowerCase();
      const filename = info.filename ?? "";
      // The file's bytes get a hash of their own, so the order in which they and later parts
      // are seen does not change the digest.
      const fileHash = digest ? createHash("sha256") : undefined;
      if (!typeAccepted(spec, declared) && !extensionAccepted(spec, filename)) {
        stream.resume();
        fail(new UploadRefused(415, `Unsupported file type ${declared || "(none)"}`));
        return;
      }
      // The store consumes through a pass-through, so a refusal never stalls busboy's stream.
      body = fileHash ? hashingStream(fileHash) : new PassThrough();
      stream.pipe(body);
      file = store(objects, key, body, declared, spec.maxBytes).then((bytes) => {
        fileDigest = fileHash && `file\n${JSON.stringify([filename, declared])}\n${fileHash.digest("base64url")}`;
        return uploaded(key, declared, filename, bytes);
      });
      file.catch((error: unknown) => {
        stream.resume();
        fail(error);
      });
    });
    parser.on("field", (name, value, info) => {
      if (info.valueTruncated) return fail(new UploadRefused(422, `Form field ${name} is too long`));
      fields[name] = value;
      digest?.update(`field\n${JSON.stringify([name, value])}\n`);
    });
    parser.on("partsLimit", () => fail(new UploadRefused(422, "Too many form parts")));
    parser.on("fieldsLimit", () => fail(new UploadRefused(422, "Too many form fields")));
    parser.on("error", () => fail(new UploadRefused(422, "Malformed multipart/form-data body")));
    parser.on("close", () => {
      if (failed) return;
      if (!file) return fail(new UploadRefused(422, "Field required", ["body", "file"]));
      file.then(
        (stored) => {
          if (fileDigest) digest?.update(fileDigest);
          resolve({ file: stored, fields });
        },
        (error: unknown) => fail(error),
      );
    });
    // A body sent without a length (chunked) is counted as it comes: parts that are not the file
    // (discarded by the parser, or truncated fields) may not make it longer than a file could be.
    let received = 0;
    req.on("data", (chunk: Buffer) => {
      received += chunk.length;
      if (received > spec.maxBytes + MULTIPART_OVERHEAD)
        fail(new UploadRefused(413, `File larger than ${spec.maxBytes} bytes`));
    });
    req.on("error", (error) => fail(error));
    req.pipe(parser);
  });
}
