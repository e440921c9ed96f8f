import { create } from "@bufbuild/protobuf";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  blankToNull,
  invalidArgument,
  newEvent,
  orgOf,
  type ServiceContext,
  type Violation,
  notFound,
  withDefaults,
  required,
  invalidValue,
  tooShort,
  belowMin,
  aboveMax,
  notAllowed,
  nulCharacter,
  pageAnswer,
  pageRequest,
} from "@voiceops/platform";
import {
  KnowledgeSourceCreatedSchema,
  KnowledgeSourceDeletedSchema,
} from "@voiceops/proto/voiceops/comms/v1/knowledge_events_pb";
import {
  SearchKnowledgeBaseRequestSchema,
  ListKnowledgeSourcesRequestSchema,
  KnowledgeSearchMode,
  KnowledgeSearchResultSchema,
  KnowledgeSourceStatus,
  KnowledgeSourceType,
  type KnowledgeService,
} from "@voiceops/proto/voiceops/comms/v1/knowledge_service_pb";
import { isBlockedAddress } from "@voiceops/platform";
import type { KnowledgeConfig } from "../knowledge/config.js";
import { declaredMediaType } from "../knowledge/document-kinds.js";
import { resolveAll, urlProblem } from "../knowledge/fetch-url.js";
import { toKnowledgeSource, type SourceStatus, type SourceType } from "../store/knowledge-rows.js";
import { KnowledgeSearchStore } from "../store/knowledge-search.js";
import type { KnowledgeSourceStore, NewSource } from "../store/knowledge-sources.js";

const STATUS_NAME: Partial<Record<KnowledgeSourceStatus, SourceStatus>> = {
  [KnowledgeSourceStatus.PROCESSING]: "processing",
  [KnowledgeSourceStatus.READY]: "ready",
  [KnowledgeSourceStatus.ERROR]: "error",
};

const TYPE_NAME: Partial<Record<KnowledgeSourceType, SourceType>> = {
  [KnowledgeSourceType.TEXT]: "text",
  [KnowledgeSourceType.URL]: "url",
  [KnowledgeSourceType.FILE]: "file",
};

/** PostgreSQL text cannot hold NUL; a field carrying one is refused rather than failing later. */
function noNul(field: string, value: string | undefined, out: Violation[]): void {
  if (value?.includes("\u0000")) out.push(nulCharacter(field, value));
}

/** How long creation waits for DNS before leaving the check of a host name to ingestion. */
const CREATE_DNS_TIMEOUT_MS = 2_000;

/** Why a URL source is refused at once, or undefined when it may be ingested. */
async function urlViolation(url: string, config: KnowledgeConfig): Promise<Violation | undefined> {
  const problem = urlProblem(url, config.allowPrivateUrls);
  if (problem) return invalidValue("url", `the URL ${problem}`, url);
  if (config.allowPrivateUrls) return undefined;
  const { hostname } = new URL(url);
  if (hostname.startsWith("[") || /^[\d.]+$/.test(hostname)) return undefined;
  const addresses = await resolveAll(hostname, CREATE_DNS_TIMEOUT_MS);
  if (addresses?.some((address) => isBlockedAddress(address))) {
    return invalidValue("url", "the URL points to a loopback, private or link-local address", url);
  }
  return undefined;
}

/** The knowledge base: sources, their ingestion (started here, run by the worker) and search. */
export function knowledgeHandlers(
  service: ServiceContext,
  store: KnowledgeSourceStore,
  config: KnowledgeConfig,
): ServiceImpl<typeof KnowledgeService> {
  const { db } = service;
  const search = new KnowledgeSearchStore();

  async function createSource(ctx: HandlerContext, orgId: string, source: NewSource) {
    const row = await service.write(ctx, async (tx, emit) => {
      const inserted = await store.insert(tx, orgId, source);
      emit(
        newEvent(
          orgId,
          "comms.knowledge_source.created",
          KnowledgeSourceCreatedSchema,
          create(KnowledgeSourceCreatedSchema, { source: toKnowledgeSource(inserted) }),
        ),
      );
      return inserted;
    });
    return { source: toKnowledgeSource(row) };
  }

  return {
    async listKnowledgeSources(req, ctx) {
      const org = orgOf(ctx);
      const paging = pageRequest(ListKnowledgeSourcesRequestSchema, req);
      const violations: Violation[] = [];
      noNul("search", req.search, violations);
      if (violations.length > 0) throw invalidArgument(violations);
      const listing = await store.list(db, org.orgId, {
        ...paging,
        status: req.status === undefined ? undefined : STATUS_NAME[req.status],
        type: req.type === undefined ? undefined : TYPE_NAME[req.type],
        search: req.search?.trim() || undefined,
      });
      return pageAnswer(paging, listing, toKnowledgeSource);
    },

    async createKnowledgeSource(req, ctx) {
      const org = orgOf(ctx);
      const violations: Violation[] = [];
      noNul("title", req.title, violations);
      noNul("text", req.text, violations);
      noNul("url", req.url, violations);
      const title = blankToNull(req.title);
      if (req.type === "text") {
        if (title === null)
          violations.push(req.title === undefined ? required("title") : tooShort("title", req.title, 1));
        if (req.text === undefined) violations.push(required("text"));
        else if (req.text.trim() === "") violations.push(tooShort("text", req.text, 1));
      } else if (req.type === "url") {
        const url = req.url?.trim();
        if (!url) violations.push(req.url === undefined ? required("url") : tooShort("url", req.url, 1));
        else if (!violations.some((v) => v.field === "url")) {
          const refused = await urlViolation(url, config);
          if (refused) violations.push(refused);
        }
      } else {
        violations.push(notAllowed("type", req.type, ["text", "url"]));
      }
      if (violations.length > 0) throw invalidArgument(violations);
      if (req.type === "text") {
        const text = req.text ?? "";
        return createSource(ctx, org.orgId, {
          type: "text",
          title,
          url: null,
          filename: null,
          contentType: null,
          bytes: Buffer.byteLength(text, "utf8"),
          body: text,
          objectKey: null,
        });
      }
      const url = new URL((req.url ?? "").trim()).toString();
      return createSource(ctx, org.orgId, {
        type: "url",
        title,
        url,
        filename: null,
        contentType: null,
        bytes: null,
        body: null,
        objectKey: null,
      });
    },

    async uploadKnowledgeSource(req, ctx) {
      const org = orgOf(ctx);
      const violations: Violation[] = [];
      noNul("title", req.title, violations);
      const file = req.file;
      if (!file?.objectKey) violations.push(required("file"));
      if (violations.length > 0 || !file) throw invalidArgument(violations);
      // Uploads are stored under their organization's prefix; another key is not this caller's file.
      if (!file.objectKey.startsWith(`uploads/${org.orgId}/`))
        throw invalidArgument([invalidValue("file", "not a file uploaded by this organization", null)]);
      const filename = blankToNull(file.filename);
      return createSource(ctx, org.orgId, {
        type: "file",
        title: blankToNull(req.title),
        url: null,
        filename,
        contentType:
          declaredMediaType(file.contentType, filename ?? undefined) ?? (blankToNull(file.contentType) || null),
        bytes: Number(file.bytes),
        body: null,
        objectKey: file.objectKey,
      });
    },

    async getKnowledgeSource(req, ctx) {
      const org = orgOf(ctx);
      const row = await store.get(db, org.orgId, req.sourceId);
      if (!row) throw notFound("Knowledge source");
      return { source: toKnowledgeSource(row) };
    },

    async deleteKnowledgeSource(req, ctx) {
      const org = orgOf(ctx);
      const deleted = await service.write(ctx, async (tx, emit) => {
        const row = await store.delete(tx, org.orgId, req.sourceId);
        if (!row) throw notFound("Knowledge source");
        emit(
          newEvent(
            org.orgId,
            "comms.knowledge_source.deleted",
            KnowledgeSourceDeletedSchema,
            create(KnowledgeSourceDeletedSchema, { sourceId: row.id }),
          ),
        );
        return row;
      });
      // The uploaded file of a source still waiting for ingestion goes with it.
      if (deleted.object_key)
        await service.objects
          .delete(deleted.object_key)
          .catch((error: unknown) => service.logger.warn({ err: error }, "could not remove an uploaded file"));
      return {};
    },

    async searchKnowledgeBase(req, ctx) {
      const org = orgOf(ctx);
      const violations: Violation[] = [];
      noNul("query", req.query, violations);
      const minScore = req.minScore ?? 0;
      if (!Number.isFinite(minScore) || minScore < 0) {
        violations.push(belowMin("min_score", minScore, 0));
      } else if (minScore > 1) {
        violations.push(aboveMax("min_score", minScore, 1));
      }
      if (req.query.trim() === "") violations.push(tooShort("query", req.query, 1));
      if (violations.length > 0) throw invalidArgument(violations);
      const outcome = await search.search(db, org.orgId, {
        query: req.query,
        topK: withDefaults(SearchKnowledgeBaseRequestSchema, req, "topK").topK,
        sourceIds: [...new Set(req.sourceIds)],
        minScore,
      });
      return {
        query: req.query,
        mode: outcome.mode === "fulltext" ? KnowledgeSearchMode.FULLTEXT : KnowledgeSearchMode.FUZZY,
        results: outcome.results.map((hit) =>
          create(KnowledgeSearchResultSchema, {
            chunkId: hit.chunk_id,
            sourceId: hit.source_id,
            sourceTitle: hit.source_title ?? undefined,
            content: hit.content,
            highlight: hit.highlight,
            score: hit.score,
          }),
        ),
      };
    },
  };
}
