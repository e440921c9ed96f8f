import { envFlag, envInt } from "@voiceops/platform";
import { type DocumentLimits, MB } from "./document-limits.js";

/** Settings of the knowledge base, read from the service's environment at start-up. */
export interface KnowledgeConfig {
  /** KB_ALLOW_PRIVATE_URLS=true lets URL sources reach loopback, private and link-local addresses. */
  allowPrivateUrls: boolean;
  /** Whole fetch of a URL (every redirect and the body), in ms. */
  fetchTimeoutMs: number;
  /** Largest body a URL may answer. */
  maxUrlBytes: number;
  /** How many times ingestion of one source is started before it ends in error. */
  maxAttempts: number;
  /** How long a worker holds a source it ingests before another may take it over (it renews while alive). */
  leaseMs: number;
  /** How often a worker looks for work it was not told about (sources whose worker died). */
  pollMs: number;
  /** Sources ingested at once per process. */
  concurrency: number;
  /** Text extraction, in child processes of its own. */
  extraction: {
    timeoutMs: number;
    /** Hard cap on the resident memory of one extraction process. */
    maxMemoryMb: number;
    /** Extraction processes at once (documents beyond wait their turn). */
    concurrency: number;
    document: DocumentLimits;
  };
}

export function readKnowledgeConfig(env: Record<string, string | undefined>): KnowledgeConfig {
  return {
    allowPrivateUrls: envFlag("KB_ALLOW_PRIVATE_URLS", env),
    fetchTimeoutMs: envInt("KB_URL_TIMEOUT_SECONDS", 10, { min: 1, max: 120 }, env) * 1000,
    maxUrlBytes: 5 * 1024 * 1024,
    maxAttempts: envInt("KB_INGEST_MAX_ATTEMPTS", 3, { min: 1, max: 20 }, env),
    leaseMs: envInt("KB_INGEST_LEASE_SECONDS", 60, { min: 2, max: 3600 }, env) * 1000,
    pollMs: 5_000,
    concurrency: envInt("KB_INGEST_CONCURRENCY", 2, { min: 1, max: 16 }, env),
    extraction: {
      timeoutMs: envInt("KB_EXTRACT_TIMEOUT_SECONDS", 60, { min: 1, max: 3600 }, env) * 1000,
      maxMemoryMb: envInt("KB_EXTRACT_MEMORY_MB", 256, { min: 128, max: 16_384 }, env),
      concurrency: envInt("KB_EXTRACT_CONCURRENCY", 1, { min: 1, max: 16 }, env),
      document: {
        maxDecompressedBytes: envInt("KB_MAX_DECOMPRESSED_MB", 40, { min: 1, max: 4096 }, env) * MB,
        maxCompressionRatio: envInt("KB_MAX_COMPRESSION_RATIO", 100, { min: 2, max: 1_000_000 }, env),
        maxTextChars: envInt("KB_MAX_TEXT_MB", 10, { min: 1, max: 1024 }, env) * MB,
        maxHtmlElements: envInt("KB_MAX_HTML_ELEMENTS", 40_000, { min: 100, max: 10_000_000 }, env),
        maxHtmlDepth: envInt("KB_MAX_HTML_DEPTH", 500, { min: 10, max: 100_000 }, env),
      },
    },
  };
}
