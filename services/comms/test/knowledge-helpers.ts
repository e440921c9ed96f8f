import { expect } from "vitest";
import { eventually, expectStatus, type ApiClient } from "@voiceops/platform/testing";

// Shared by the knowledge-base HTTP tests.

export const SOURCES = "/api/knowledge-base/sources";
export const SEARCH = "/api/knowledge-base/search";

export const SOURCE_KEYS = [
  "bytes",
  "chunk_count",
  "content_type",
  "created_at",
  "error",
  "filename",
  "id",
  "status",
  "title",
  "type",
  "updated_at",
  "url",
];
export const RESULT_KEYS = ["chunk_id", "content", "highlight", "score", "source_id", "source_title"];

export interface Source {
  id: string;
  type: "text" | "url" | "file";
  title: string | null;
  url: string | null;
  filename: string | null;
  content_type: string | null;
  status: "processing" | "ready" | "error";
  error: string | null;
  chunk_count: number;
  bytes: number | null;
  created_at: string;
  updated_at: string;
}

export interface SearchResult {
  chunk_id: string;
  source_id: string;
  source_title: string | null;
  content: string;
  highlight: string;
  score: number;
}

export interface SearchResponse {
  query: string;
  mode: "fulltext" | "fuzzy";
  results: SearchResult[];
}

export async function createSource(client: ApiClient, body: Record<string, unknown>): Promise<Source> {
  return expectStatus(await client.post<Source>(SOURCES, body), 201);
}

/** Waits until ingestion of a source ends (ready or error) and returns it. */
export async function settled(client: ApiClient, id: string, timeoutMs = 90_000): Promise<Source> {
  return eventually(
    async () => {
      const source = expectStatus(await client.get<Source>(`${SOURCES}/${id}`), 200);
      return source.status === "processing" ? undefined : source;
    },
    timeoutMs,
    100,
  );
}

/** Creates a source and waits for it to be ready. */
export async function readySource(client: ApiClient, body: Record<string, unknown>): Promise<Source> {
  const created = await createSource(client, body);
  const source = await settled(client, created.id);
  expect(source.status, source.error ?? "").toBe("ready");
  return source;
}

export async function search(client: ApiClient, body: Record<string, unknown>): Promise<SearchResponse> {
  return expectStatus(await client.post<SearchResponse>(SEARCH, body), 200);
}
