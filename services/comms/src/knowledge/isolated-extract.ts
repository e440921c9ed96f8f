import { type ChildProcess, execFile, fork } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { DocumentKind, ExtractedDocument } from "./document-kinds.js";
import type { DocumentLimits } from "./document-limits.js";
import { IngestionError } from "./errors.js";

/** Set to true by the build (gateway/scripts/build.mjs) in the bundles under dist/. */
declare const VOICEOPS_BUNDLED: boolean | undefined;

/**
 * The extraction process's entry point: its own bundle in dist/ when this code runs from one
 * (the path is relative to this source file, whose URL the build keeps), else a small script
 * that loads the TypeScript through tsx.
 */
function childEntry(): string {
  const bundled = typeof VOICEOPS_BUNDLED !== "undefined" && VOICEOPS_BUNDLED;
  return fileURLToPath(
    new URL(bundled ? "../../../../dist/knowledge-extract.js" : "./extract-child.mjs", import.meta.url),
  );
}

interface ExtractionLimits {
  timeoutMs: number;
  /** Most resident memory one extraction process may use (its V8 heap, buffers and code together). */
  maxMemoryMb: number;
  /** Idle processes end after this long. */
  idleMs: number;
  /** Processes at most (one document each at a time); more documents wait their turn. */
  size: number;
  document: DocumentLimits;
}

type Reply =
  | { document: ExtractedDocument; error?: undefined }
  | { error: { message: string; transient: boolean }; document?: undefined };

interface Slot {
  child: ChildProcess;
  idleTimer?: NodeJS.Timeout;
}

/** How often a working process's resident memory is read. */
const WATCH_MS = 50;

/** Resident memory of a process in bytes: /proc where there is one, else ps; undefined when gone. */
async function residentBytes(pid: number): Promise<number | undefined> {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "latin1");
    const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch (error) {
    if ((error as { code?: string }).code !== "ENOENT" || process.platform === "linux") return undefined;
  }
  return new Promise((resolve) => {
    execFile("ps", ["-o", "rss=", "-p", String(pid)], (error, stdout) =>
      resolve(error ? undefined : Number(stdout.trim()) * 1024 || undefined),
    );
  });
}

/**
 * Text extraction in child processes: a document that would hang a parser or exhaust its memory
 * ends that process, never this one. Each process has a hard cap on its resident memory (read
 * every 50 ms, killed past it), which holds for what V8's heap limit does not see (the buffers
 * that inflation fills), and a time limit. Processes are kept for the next document (loading the
 * parsers takes a while) and end when idle; they get no environment beyond what node needs.
 */
export class ExtractionPool {
  private readonly idle: Slot[] = [];
  private readonly busy = new Set<Slot>();
  /** Documents waiting for a process, when `size` are busy. */
  private readonly waiting = new Set<() => void>();
  private closed = false;

  constructor(private readonly limits: ExtractionLimits) {}

  async extract(
    bytes: Uint8Array,
    kind: DocumentKind,
    contentType: string | undefined,
    signal?: AbortSignal,
  ): Promise<ExtractedDocument> {
    while (this.busy.size >= this.limits.size) await this.turn(signal);
    if (this.closed || signal?.aborted) throw new IngestionError("ingestion was interrupted", true);
    const slot = this.idle.pop() ?? this.spawn();
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    this.busy.add(slot);
    let reusable = false;
    try {
      const document = await this.run(slot.child, bytes, kind, contentType, signal);
      reusable = true;
      return document;
    } catch (error) {
      // A process that answered with an extraction error is still usable; any other failure ends it.
      reusable = error instanceof AnsweredError;
      throw error instanceof AnsweredError ? error.cause : error;
    } finally {
      this.busy.delete(slot);
      // A process whose memory grew past three quarters of the cap gives it back by ending.
      const resident = reusable && slot.child.pid !== undefined ? await residentBytes(slot.child.pid) : undefined;
      const small = resident !== undefined && resident < this.limits.maxMemoryMb * 1024 * 1024 * 0.75;
      if (small && !this.closed && this.idle.length + this.busy.size < this.limits.size) {
        slot.idleTimer = setTimeout(() => this.retire(slot), this.limits.idleMs);
        slot.idleTimer.unref();
        this.idle.push(slot);
      } else {
        slot.child.kill("SIGKILL");
      }
      const next = this.waiting.values().next();
      if (!next.done) next.value();
    }
  }

  /** Waits until a process is free (or the pool closes, or the caller gives up). */
  private turn(signal: AbortSignal | undefined): Promise<void> {
    if (this.closed || signal?.aborted) return Promise.reject(new IngestionError("ingestion was interrupted", true));
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.waiting.delete(wake);
        reject(new IngestionError("ingestion was interrupted", true));
      };
      const wake = () => {
        this.waiting.delete(wake);
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      this.waiting.add(wake);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const wake of [...this.waiting]) wake();
    const all = [...this.idle, ...this.busy];
    this.idle.length = 0;
    await Promise.all(
      all.map(
        (slot) =>
          new Promise<void>((resolve) => {
            if (slot.child.exitCode !== null || slot.child.signalCode !== null) return resolve();
            slot.child.once("exit", () => resolve());
            slot.child.kill("SIGKILL");
          }),
      ),
    );
  }

  private spawn(): Slot {
    const { maxMemoryMb } = this.limits;
    const child = fork(childEntry(), [], {
      execArgv: [`--max-old-space-size=${maxMemoryMb}`, "--max-semi-space-size=4"],
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        TMPDIR: process.env.TMPDIR,
        NODE_ENV: process.env.NODE_ENV,
      },
      serialization: "advanced",
      stdio: ["ignore", "ignore", "ignore", "ipc"],
    });
    // Errors outside a job (an idle process dying) must not be unhandled; idle ones keep no one waiting.
    child.on("error", () => undefined);
    child.unref();
    child.channel?.unref();
    return { child };
  }

  private retire(slot: Slot): void {
    const index = this.idle.indexOf(slot);
    if (index >= 0) this.idle.splice(index, 1);
    slot.child.kill("SIGKILL");
  }

  private run(
    child: ChildProcess,
    bytes: Uint8Array,
    kind: DocumentKind,
    contentType: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<ExtractedDocument> {
    const { timeoutMs, maxMemoryMb, document: limits } = this.limits;
    const capBytes = maxMemoryMb * 1024 * 1024;
    const outOfMemory = () =>
      new IngestionError(`the document needs more than ${maxMemoryMb} MB of memory to read`, false);
    return new Promise((resolve, reject) => {
      let done = false;
      const finish = (error: Error | undefined, document?: ExtractedDocument) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        clearInterval(watch);
        signal?.removeEventListener("abort", onAbort);
        child.off("message", onMessage);
        child.off("error", onError);
        child.off("exit", onExit);
        child.channel?.unref();
        if (error) reject(error);
        else resolve(document as ExtractedDocument);
      };
      const onAbort = () => finish(new IngestionError("ingestion was interrupted", true));
      const onMessage = (reply: Reply) => {
        if (reply.error) finish(new AnsweredError(new IngestionError(reply.error.message, reply.error.transient)));
        else finish(undefined, reply.document);
      };
      const onError = (error: Error) => finish(new IngestionError(`text extraction failed: ${error.message}`, true));
      const onExit = (code: number | null, exitSignal: NodeJS.Signals | null) => {
        // V8 aborts a process whose heap reaches its limit.
        if (exitSignal === "SIGABRT" || exitSignal === "SIGTRAP" || code === 134) finish(outOfMemory());
        else finish(new IngestionError(`text extraction stopped unexpectedly (exit ${exitSignal ?? code})`, true));
      };
      const timer = setTimeout(
        () => finish(new IngestionError(`text extraction did not finish within ${timeoutMs / 1000} seconds`, false)),
        timeoutMs,
      );
      let reading = false;
      const watch = setInterval(() => {
        if (reading || child.pid === undefined) return;
        reading = true;
        void residentBytes(child.pid).then((resident) => {
          reading = false;
          if (resident !== undefined && resident > capBytes) {
            child.kill("SIGKILL");
            finish(outOfMemory());
          }
        });
      }, WATCH_MS);
      signal?.addEventListener("abort", onAbort);
      child.on("message", onMessage);
      child.on("error", onError);
      child.on("exit", onExit);
      child.channel?.ref();
      child.send({ bytes, kind, contentType, limits });
    });
  }
}

/** An extraction error the process answered (the process itself is fine). */
class AnsweredError extends Error {
  constructor(override readonly cause: IngestionError) {
    super(cause.message);
  }
}
