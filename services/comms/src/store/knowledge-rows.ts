import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  KnowledgeSourceSchema,
  KnowledgeSourceStatus,
  KnowledgeSourceType,
  type KnowledgeSource,
} from "@voiceops/proto/voiceops/comms/v1/knowledge_service_pb";

// A knowledge source row as the database returns it, and its mapping to the API message.

export type SourceType = "text" | "url" | "file";
export type SourceStatus = "processing" | "ready" | "error";

export interface SourceRow {
  id: string;
  org_id: string;
  type: SourceType;
  title: string | null;
  url: string | null;
  filename: string | null;
  content_type: string | null;
  status: SourceStatus;
  error: string | null;
  chunk_count: number;
  /** bigint column; the drivers return it as a number or a string. */
  bytes: number | string | null;
  created_at: Date;
  updated_at: Date;
}

export const SOURCE_COLUMNS =
  "id, org_id, type, title, url, filename, content_type, status, error, chunk_count, bytes, created_at, updated_at";

const TYPE_OF: Record<SourceType, KnowledgeSourceType> = {
  text: KnowledgeSourceType.TEXT,
  url: KnowledgeSourceType.URL,
  file: KnowledgeSourceType.FILE,
};

const STATUS_OF: Record<SourceStatus, KnowledgeSourceStatus> = {
  processing: KnowledgeSourceStatus.PROCESSING,
  ready: KnowledgeSourceStatus.READY,
  error: KnowledgeSourceStatus.ERROR,
};

const opt = <T>(value: T | null): T | undefined => (value === null ? undefined : value);

export function toKnowledgeSource(row: SourceRow): KnowledgeSource {
  return create(KnowledgeSourceSchema, {
    id: row.id,
    type: TYPE_OF[row.type],
    title: opt(row.title),
    url: opt(row.url),
    filename: opt(row.filename),
    contentType: opt(row.content_type),
    status: STATUS_OF[row.status],
    error: opt(row.error),
    chunkCount: Number(row.chunk_count),
    bytes: row.bytes === null ? undefined : BigInt(row.bytes),
    createdAt: timestampFromDate(row.created_at),
    updatedAt: timestampFromDate(row.updated_at),
  });
}
