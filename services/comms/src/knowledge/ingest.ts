import { create } from "@bufbuild/protobuf";
import { newEvent, ObjectNotFoundError, type ServiceContext, type Subscription } from "@voiceops/platform";
import { KnowledgeSourceIngestedSchema } from "@voiceops/proto/voiceops/comms/v1/knowledge_events_pb";
import { toKnowledgeSource, type SourceRow } from "../store/knowledge-rows.js";
import type { ClaimedSource, IngestionResult, KnowledgeSourceStore } from "../store/knowledge-sources.js";
import { wordsOf } from "../store/knowledge-search.js";
import { chunkDocument } from "./chunk.js";
import type { KnowledgeConfig } from "./config.js";
import { IngestionError } from "./errors.js";
import { documentKind, mediaTypeOf, type DocumentKind } from "./document-kinds.js";
import { fetchUrl } from "./fetch-url.js";
import { ExtractionPool } from "./isolated-extract.js";

interface LoadedDocument {
  bytes: Buffer;
  kind: DocumentKind;
  contentType: string;
  /** Title when the document has none of its own. */
  fallbackTitle: string | null;
}

/** Most an uploaded file may weigh (the gateway refuses larger ones). */
const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;
/** Words longer than this are not kept in the vocabulary (hashes, run-together junk). */
const MAX_WORD_LENGTH = 40;

function retryDelayMs(attempt: number): number {
  return Math.min(60_000, 2_000 * 4 ** Math.max(0, attempt - 1));
}

function urlTitle(raw: string): string {
  try {
    const url = new URL(raw);
    return `${url.host}${url.pathname === "/" ? "" : url.pathname}`;
  } catch {
    return raw;
  }
}

/**
 * Ingests knowledge sources in the background: claims a processing source (woken by the
 * comms.knowledge_source.created event, and by a timer for work whose worker died), loads the
 * document, extracts its text, chunks and indexes it, and marks it ready, or error with the
 * reason. A claim is a lease the worker renews while it works; when the process dies, the
 * lease runs out and another worker (or this one, restarted) starts the source again. Every
 * start counts: after maxAttempts the source ends in error, so a document that crashes or
 * hangs the worker cannot block the queue. Sources are claimed with FOR UPDATE SKIP LOCKED,
 * so replicas share the work and never ingest one source twice at once.
 */
export class IngestionWorker implements Subscription {
  private readonly preferred: string[] = [];
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private timer: NodeJS.Timeout | undefined;
  private pumping: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private started = false;
  private readonly extraction: ExtractionPool;

  constructor(
    private readonly context: ServiceContext,
    private readonly store: KnowledgeSourceStore,
    private readonly config: KnowledgeConfig,
  ) {
    const { concurrency, ...extraction } = config.extraction;
    this.extraction = new ExtractionPool({ ...extraction, idleMs: 60_000, size: concurrency });
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.schedule(0);
  }

  /** Work is waiting (a source was created); the given one goes first. */
  wake(sourceId?: string): void {
    if (sourceId && !this.preferred.includes(sourceId)) this.preferred.push(sourceId);
    if (this.started) this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    for (const job of this.running.values()) job.controller.abort();
    await this.pumping;
    await Promise.all([...this.running.values()].map((job) => job.done));
    await this.extraction.close();
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pumping = this.pump().finally(() => {
        this.pumping = undefined;
        const again = this.again;
        this.again = false;
        this.schedule(again ? 0 : this.config.pollMs);
      });
    }, delayMs);
    this.timer.unref();
  }

  private async pump(): Promise<void> {
    try {
      const abandoned = await this.context.write(async (tx, emit) => {
        const rows = await this.store.giveUpAbandoned(tx, this.config.maxAttempts);
        for (const row of rows) this.emitOutcome(emit, row);
        return rows;
      });
      for (const row of abandoned)
        this.context.logger.warn(
          { sourceId: row.id, error: row.error },
          "knowledge source abandoned after repeated failed ingestion",
        );
      while (!this.stopped && this.running.size < this.config.concurrency) {
        const claimed = await this.store.claim(
          this.context.db,
          this.config.leaseMs,
          this.config.maxAttempts,
          this.preferred.shift(),
        );
        if (!claimed) break;
        const controller = new AbortController();
        const done = this.ingest(claimed, controller.signal).finally(() => {
          this.running.delete(claimed.id);
          this.schedule(0);
        });
        this.running.set(claimed.id, { controller, done });
      }
    } catch (error) {
      if (!this.stopped) this.context.logger.warn({ err: error }, "knowledge ingestion queue unavailable; will retry");
    }
  }

  private emitOutcome(emit: (event: ReturnType<typeof newEvent>) => void, row: SourceRow): void {
    const type = row.status === "ready" ? "comms.knowledge_source.ready" : "comms.knowledge_source.failed";
    emit(
      newEvent(
        row.org_id,
        type,
        KnowledgeSourceIngestedSchema,
        create(KnowledgeSourceIngestedSchema, { source: toKnowledgeSource(row) }),
      ),
    );
  }

  private async ingest(source: ClaimedSource, signal: AbortSignal): Promise<void> {
    const { logger } = this.context;
    const heartbeat = setInterval(
      () => {
        this.store
          .renew(this.context.db, source.id, this.config.leaseMs)
          .then((alive) => {
            // Deleted meanwhile: nothing to finish.
            if (!alive) this.running.get(source.id)?.controller.abort();
          })
          .catch(() => undefined);
      },
      Math.max(1_000, this.config.leaseMs / 3),
    );
    heartbeat.unref();
    try {
      const result = await this.process(source, signal);
      if (signal.aborted) throw new IngestionError("ingestion was interrupted", true);
      const row = await this.context.write(async (tx, emit) => {
        const ready = await this.store.markReady(tx, source, result);
        if (ready) this.emitOutcome(emit, ready);
        return ready;
      });
      if (row) logger.info({ sourceId: source.id, chunks: result.chunks.length }, "knowledge source ready");
      this.discardUpload(source);
    } catch (error) {
      await this.failed(source, error, signal).catch((failure: unknown) =>
        logger.warn(
          { err: failure, sourceId: source.id },
          "could not record an ingestion failure; the lease will run out",
        ),
      );
    } finally {
      clearInterval(heartbeat);
    }
  }

  private async failed(source: ClaimedSource, error: unknown, signal: AbortSignal): Promise<void> {
    const { logger, db } = this.context;
    if (this.stopped && signal.aborted) {
      // Shutting down: hand the source back at once, without counting the attempt.
      await this.store.release(db, source.id);
      return;
    }
    const reason =
      error instanceof IngestionError
        ? error.message
        : `ingestion failed: ${error instanceof Error ? error.message : String(error)}`;
    const transient = !(error instanceof IngestionError) || error.transient;
    if (transient && source.attempts < this.config.maxAttempts) {
      logger.warn({ sourceId: source.id, attempt: source.attempts, reason }, "knowledge ingestion failed; will retry");
      await this.store.retryLater(db, source.id, retryDelayMs(source.attempts), reason);
      return;
    }
    const message =
      transient && this.config.maxAttempts > 1 ? `${reason} (gave up after ${source.attempts} attempts)` : reason;
    const row = await this.context.write(async (tx, emit) => {
      const failed = await this.store.markError(tx, source.id, message);
      if (failed) this.emitOutcome(emit, failed);
      return failed;
    });
    if (row) logger.info({ sourceId: source.id, reason: message }, "knowledge source ingestion failed");
    this.discardUpload(source);
  }

  private async load(source: ClaimedSource, signal: AbortSignal): Promise<LoadedDocument> {
    switch (source.type) {
      case "text": {
        const bytes = Buffer.from(source.body ?? "", "utf8");
        return {
          bytes,
          kind: "markdown",
          contentType: source.content_type ?? "text/markdown",
          fallbackTitle: source.title,
        };
      }
      case "url": {
        const url = source.url ?? "";
        const fetched = await fetchUrl(url, {
          allowPrivate: this.config.allowPrivateUrls,
          timeoutMs: this.config.fetchTimeoutMs,
          maxBytes: this.config.maxUrlBytes,
          signal,
        });
        const kind = documentKind(fetched.body, fetched.contentType, new URL(fetched.url).pathname);
        if (!kind)
          throw new IngestionError(
            `the URL answered an unsupported content type (${fetched.contentType ?? "none"})`,
            false,
          );
        return { bytes: fetched.body, kind, contentType: mediaTypeOf(kind), fallbackTitle: urlTitle(fetched.url) };
      }
      case "file": {
        if (!source.object_key) throw new IngestionError("the uploaded file is missing", false);
        const bytes = await this.readUpload(source.object_key);
        const kind = documentKind(bytes, source.content_type ?? undefined, source.filename ?? undefined);
        if (!kind) throw new IngestionError(`unsupported file type (${source.content_type ?? "unknown"})`, false);
        return { bytes, kind, contentType: mediaTypeOf(kind), fallbackTitle: source.filename };
      }
    }
  }

  /** The bytes of an uploaded file from the object store. */
  private async readUpload(key: string): Promise<Buffer> {
    let stored;
    try {
      stored = await this.context.objects.get(key);
    } catch (error) {
      if (error instanceof ObjectNotFoundError) throw new IngestionError("the uploaded file is missing", false);
      throw error;
    }
    const parts: Buffer[] = [];
    let size = 0;
    for await (const part of stored.body) {
      size += (part as Buffer).length;
      if (size > MAX_UPLOAD_BYTES) {
        stored.body.destroy();
        throw new IngestionError("the file is larger than 20 MB", false);
      }
      parts.push(part as Buffer);
    }
    return Buffer.concat(parts);
  }

  /** An uploaded file is not needed once its source is ready or has failed for good. */
  private discardUpload(source: ClaimedSource): void {
    if (!source.object_key) return;
    this.context.objects
      .delete(source.object_key)
      .catch((error: unknown) =>
        this.context.logger.warn({ err: error, sourceId: source.id }, "could not remove an ingested upload"),
      );
  }

  private async process(source: ClaimedSource, signal: AbortSignal): Promise<IngestionResult> {
    const loaded = await this.load(source, signal);
    if (signal.aborted) throw new IngestionError("ingestion was interrupted", true);
    const document = await this.extraction.extract(loaded.bytes, loaded.kind, loaded.contentType, signal);
    const chunks = chunkDocument(document.blocks);
    if (chunks.length === 0) throw new IngestionError("the document contains no text", false);
    const words = new Set<string>();
    for (const chunk of chunks) {
      for (const word of wordsOf(`${chunk.heading} ${chunk.content}`)) {
        if (word.length >= 2 && word.length <= MAX_WORD_LENGTH) words.add(word);
      }
    }
    return {
      title: document.title ?? loaded.fallbackTitle,
      contentType: source.type === "text" ? null : loaded.contentType,
      bytes: loaded.bytes.length,
      chunks,
      words: [...words],
    };
  }
}
