import type { Express, Request, Response } from "express";
import { ObjectNotFoundError, type Clock, type Logger, type ObjectStore, type UrlSigner } from "@voiceops/platform";
import { gatewayErrors, sendRefusal } from "./errors/index.js";

interface FilesDeps {
  objects: ObjectStore;
  signer: UrlSigner;
  clock: Clock;
  logger: Logger;
}

/**
 * GET /files/<key>?expires&signature: downloads of the file object store, for holders of a URL
 * the store signed (no API key: the signature is the credential). A changed key, expiry or
 * signature is refused (403), and so is an expired URL.
 */
export function mountFiles(app: Express, deps: FilesDeps): void {
  app.get("/files/*key", async (req: Request, res: Response) => {
    const segments = (req.params as { key?: string[] }).key ?? [];
    const key = segments.join("/");
    const expires = Number(req.query.expires);
    const signature = typeof req.query.signature === "string" ? req.query.signature : "";
    if (!Number.isSafeInteger(expires) || signature === "")
      return sendRefusal(res, gatewayErrors.FILE_SIGNATURE_MISSING());
    const verdict = deps.signer.verify(key, expires, signature, deps.clock.now());
    if (verdict === "invalid") return sendRefusal(res, gatewayErrors.FILE_SIGNATURE_INVALID());
    if (verdict === "expired") return sendRefusal(res, gatewayErrors.FILE_LINK_EXPIRED());
    try {
      const object = await deps.objects.get(key);
      res.status(200);
      res.setHeader("content-type", object.contentType);
      res.setHeader("content-length", String(object.bytes));
      res.setHeader("cache-control", "private, no-store");
      object.body.on("error", (error) => {
        deps.logger.warn({ err: error }, "object download failed");
        res.destroy();
      });
      object.body.pipe(res);
    } catch (error) {
      if (error instanceof ObjectNotFoundError) return sendRefusal(res, gatewayErrors.NOT_FOUND());
      throw error;
    }
  });
}
