import { Worker } from "node:worker_threads";
import { IngestionError } from "./errors.js";
import type { DocumentKind, ExtractedDocument } from "./document-kinds.js";

const WORKER = new URL("./extract-worker.mjs", import.meta.url);

export interface ExtractionLimits {
  timeoutMs: number;
  maxMemoryMb: number;
  /** Idle workers end after this long. */
  idleMs: number;
  /** Workers at most (one document each at a time). */
  size: number;
}

type Reply = { document: ExtractedDocument; error?: undefined } | { error: { message: string; transient: boolean }; document?: undefined };

interface Slot {
  worker: Worker;
  idleTimer?: NodeJS.Timeout;
}

/**
 * Text extraction in worker threads: a document that would hang the parser or exhaust its
 * memory is stopped (its worker terminated) and ends in error, while the process goes on
 * serving. Workers are kept for the next document (loading the parsers takes a while) and end
 * when idle. Bytes are handed over to the worker, not copied.
 */
export class ExtractionPool {
  private readonly idle: Slot[] = [];
  private readonly busy = new Set<Slot>();
  private closed = false;

  constructor(private readonly limits: ExtractionLimits) {}

  async extract(bytes: Uint8Array, kind: DocumentKind, contentType: string | undefined, signal?: AbortSignal): Promise<ExtractedDocument> {
    if (this.closed) throw new IngestionError("ingestion was interrupted", true);
    const slot = this.idle.pop() ?? this.spawn();
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    this.busy.add(slot);
    let healthy = false;
    try {
      const document = await this.run(slot.worker, bytes, kind, contentType, signal);
      healthy = true;
      return document;
    } catch (error) {
      // A worker that answered with an extraction error is still usable; any other failure ends it.
      healthy = error instanceof AnsweredError;
      throw error instanceof AnsweredError ? error.cause : error;
    } finally {
      this.busy.delete(slot);
      if (healthy && !this.closed && this.idle.length + this.busy.size < this.limits.size) {
        slot.idleTimer = setTimeout(() => this.retire(slot), this.limits.idleMs);
        slot.idleTimer.unref();
        this.idle.push(slot);
      } else {
        void slot.worker.terminate();
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.idle, ...this.busy];
    this.idle.length = 0;
    await Promise.all(all.map((slot) => slot.worker.terminate()));
  }

  private spawn(): Slot {
    const worker = new Worker(WORKER, { resourceLimits: { maxOldGenerationSizeMb: this.limits.maxMemoryMb }, stdout: false, stderr: false });
    worker.unref();
    // Errors outside a job (an idle worker dying) must not be unhandled.
    worker.on("error", () => undefined);
    return { worker };
  }

  private retire(slot: Slot): void {
    const index = this.idle.indexOf(slot);
    if (index >= 0) this.idle.splice(index, 1);
    void slot.worker.terminate();
  }

  private run(worker: Worker, bytes: Uint8Array, kind: DocumentKind, contentType: string | undefined, signal: AbortSignal | undefined): Promise<ExtractedDocument> {
    const { timeoutMs, maxMemoryMb } = this.limits;
    return new Promise((resolve, reject) => {
      let done = false;
      const finish = (error: Error | undefined, document?: ExtractedDocument) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        worker.off("message", onMessage);
        worker.off("error", onError);
        worker.off("exit", onExit);
        if (error) reject(error);
        else resolve(document as ExtractedDocument);
      };
      const onAbort = () => finish(new IngestionError("ingestion was interrupted", true));
      const onMessage = (reply: Reply) => {
        if (reply.error) finish(new AnsweredError(new IngestionError(reply.error.message, reply.error.transient)));
        else finish(undefined, reply.document);
      };
      const onError = (error: Error & { code?: string }) => {
        if (error.code === "ERR_WORKER_OUT_OF_MEMORY") finish(new IngestionError(`the document needs more than ${maxMemoryMb} MB of memory to read`, false));
        else finish(new IngestionError(`text extraction failed: ${error.message}`, true));
      };
      const onExit = (code: number) => finish(new IngestionError(`text extraction stopped unexpectedly (exit code ${code})`, true));
      const timer = setTimeout(() => finish(new IngestionError(`text extraction did not finish within ${timeoutMs / 1000} seconds`, false)), timeoutMs);
      signal?.addEventListener("abort", onAbort);
      worker.on("message", onMessage);
      worker.on("error", onError);
      worker.on("exit", onExit);
      const own = new Uint8Array(bytes.byteLength);
      own.set(bytes);
      worker.postMessage({ bytes: own, kind, contentType }, [own.buffer]);
    });
  }
}

/** An extraction error the worker answered (the worker itself is fine). */
class AnsweredError extends Error {
  constructor(override readonly cause: IngestionError) {
    super(cause.message);
  }
}
