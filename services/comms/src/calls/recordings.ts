import { timestampFromDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { Logger, ObjectStore } from "@voiceops/platform";

/** A URL a recording can be fetched from, and when it stops working (never, for a provider's). */
interface RecordingLink {
  url: string;
  expiresAt: Timestamp | undefined;
}

/** Whether a stored recording is a provider's URL rather than a key of our object store. */
const isExternalUrl = (recording: string): boolean => /^https?:\/\/[^\s]+$/i.test(recording);

/** Where the gateway stores an organization's uploads: the only keys a call of it may name. */
const orgUploadPrefix = (orgId: string): string => `uploads/${orgId}/`;

/** Whether a recording is an object of this organization in our store. */
export const isOwnObject = (orgId: string, recording: string): boolean =>
  recording.startsWith(orgUploadPrefix(orgId)) && !recording.includes("..") && recording.length <= 512;

/** Call recordings: a provider's absolute URL, or an object key of our store. */
export class Recordings {
  constructor(private readonly deps: { objects: ObjectStore; logger: Logger; ttlSeconds: number }) {}

  /**
   * A URL for a call's recording: a provider's URL as it is, our own object's signed afresh.
   * Undefined for anything else (a key of another organization is never signed).
   */
  async link(orgId: string, recording: string): Promise<RecordingLink | undefined> {
    if (isExternalUrl(recording)) return { url: recording, expiresAt: undefined };
    if (!isOwnObject(orgId, recording)) return undefined;
    const signed = await this.deps.objects.signedUrl(recording, this.deps.ttlSeconds);
    return { url: signed.url, expiresAt: timestampFromDate(signed.expiresAt) };
  }

  /**
   * Deletes the stored objects of recordings that no call names any more (after the deleting
   * transaction committed). A failure is logged and leaves an orphan object, never an error.
   */
  async discard(orgId: string, recordings: Iterable<string>): Promise<void> {
    const keys = [...new Set(recordings)].filter((recording) => isOwnObject(orgId, recording));
    await Promise.all(
      keys.map((key) =>
        this.deps.objects.delete(key).catch((error: unknown) => {
          this.deps.logger.warn({ err: error, key }, "could not delete a recording's object");
        }),
      ),
    );
  }
}
