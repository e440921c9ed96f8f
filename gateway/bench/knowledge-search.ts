import { readFileSync } from "node:fs";
import { AdminClient, isolatedDatabase, newTenant, testEnv } from "@voiceops/platform/testing";
import { chunkDocument } from "../../services/comms/src/knowledge/chunk.js";
import { readKnowledgeConfig } from "../../services/comms/src/knowledge/config.js";
import { documentKind } from "../../services/comms/src/knowledge/document-kinds.js";
import { extractDocument } from "../../services/comms/src/knowledge/extract.js";
import { wordsOf } from "../../services/comms/src/store/knowledge-search.js";
import { KnowledgeSourceStore, type IngestedChunk } from "../../services/comms/src/store/knowledge-sources.js";
import { startSystem } from "../src/system.js";

// Knowledge-base search latency on one organization with a large knowledge base, against real
// PostgreSQL (DATABASE_URL), in a scratch database. Seeds the three business documents of the
// evaluation set plus synthetic documents up to N chunks (default 100,000): ~1,400-character
// chunks of words drawn with a Zipf distribution from a 40,000-word vocabulary in which the
// business documents' own words are spread over the first 5,000 ranks, so the evaluation
// questions match from a few hundred to tens of thousands of chunks each. Then sends every
// question of the evaluation set (plain and misspelled) R times through the REST API, one at a
// time, and reports latency percentiles. Usage: DATABASE_URL=... npm run bench:knowledge-search -- [N] [R]

const target = Number(process.argv[2] ?? 100_000);
const rounds = Number(process.argv[3] ?? 10);
const base = process.env.DATABASE_URL;
if (!base) throw new Error("DATABASE_URL is required: this measures PostgreSQL");

const FIXTURES = new URL("../../services/comms/test/fixtures/knowledge/", import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, FIXTURES));

/** A small deterministic random generator (mulberry32), so every run seeds the same corpus. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const rand = random(42);
const syllables = [
  "ka",
  "lo",
  "mi",
  "ter",
  "bro",
  "an",
  "vel",
  "dun",
  "sor",
  "pe",
  "qui",
  "rat",
  "hol",
  "men",
  "stra",
  "gi",
  "fon",
  "lu",
  "wes",
  "cor",
  "ba",
  "ny",
  "ex",
  "tal",
];
function pseudoWord(): string {
  const n = 2 + Math.floor(rand() * 3);
  let word = "";
  for (let i = 0; i < n; i++) word += syllables[Math.floor(rand() * syllables.length)];
  return word;
}

const documents = await Promise.all(
  ["price-list.md", "service-area.html", "policies-faq.md"].map(async (name) => {
    const bytes = fixture(name);
    const kind = documentKind(bytes, undefined, name);
    if (!kind) throw new Error(`unsupported fixture ${name}`);
    return {
      name,
      chunks: chunkDocument((await extractDocument(bytes, kind, readKnowledgeConfig({}).extraction.document)).blocks),
    };
  }),
);
const domainWords = [...new Set(documents.flatMap((d) => d.chunks.flatMap((c) => wordsOf(c.content))))];
const vocabulary: string[] = [];
const seen = new Set<string>(domainWords);
while (vocabulary.length < 40_000 - domainWords.length) {
  const word = pseudoWord();
  if (!seen.has(word)) {
    seen.add(word);
    vocabulary.push(word);
  }
}
// Domain words take random ranks among the first 5,000.
for (const word of domainWords) vocabulary.splice(Math.floor(rand() * Math.min(5_000, vocabulary.length)), 0, word);
const cdf: number[] = [];
let sum = 0;
for (let rank = 1; rank <= vocabulary.length; rank++) {
  sum += 1 / rank;
  cdf.push(sum);
}
function drawWord(): string {
  const x = rand() * sum;
  let lo = 0;
  let hi = cdf.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((cdf[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  return vocabulary[lo] as string;
}
function sentence(): string {
  const words = Array.from({ length: 8 + Math.floor(rand() * 12) }, drawWord);
  const text = words.join(" ");
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}
function syntheticChunk(): IngestedChunk {
  const heading = Array.from({ length: 2 + Math.floor(rand() * 3) }, drawWord).join(" ");
  let content = heading;
  while (content.length < 1_300)
    content += (content.length - heading.length > 500 && rand() < 0.3 ? "\n\n" : " ") + sentence();
  return { heading, content };
}

const database = await isolatedDatabase(base);
const system = await startSystem({
  env: testEnv({
    DATABASE_URL: database.url,
    NATS_URL: "",
    RATE_LIMIT_PER_MINUTE: "100000000",
    KB_INGEST_CONCURRENCY: "1",
  }),
});
try {
  const tenant = await newTenant(system.url, new AdminClient(system.adminUrl, system.adminToken));
  const store = new KnowledgeSourceStore();
  const started = Date.now();
  let chunks = 0;
  const ingest = async (title: string, parts: IngestedChunk[]) => {
    // Straight into the store, as the ingestion worker would write an ingested document.
    const row = await store.insert(system.db, tenant.orgId, {
      type: "text",
      title,
      url: null,
      filename: null,
      contentType: null,
      bytes: 0,
      body: null,
      objectKey: null,
    });
    await system.db.query(
      "UPDATE comms.knowledge_sources SET claimed_until = now() + interval '1 hour' WHERE id = $1",
      [row.id],
    );
    const words = [...new Set(parts.flatMap((c) => wordsOf(`${c.heading} ${c.content}`)))];
    await system.db.transaction((tx) =>
      store.markReady(
        tx,
        {
          id: row.id,
          org_id: tenant.orgId,
          type: "text",
          title,
          url: null,
          filename: null,
          content_type: null,
          body: null,
          object_key: null,
          attempts: 1,
        },
        { title, contentType: null, bytes: 0, chunks: parts, words },
      ),
    );
    chunks += parts.length;
  };
  for (const document of documents) await ingest(document.name, document.chunks);
  for (let n = 0; chunks < target; n++) {
    await ingest(`Synthetic document ${n}`, Array.from({ length: Math.min(1_000, target - chunks) }, syntheticChunk));
  }
  await system.db.query("ANALYZE comms.knowledge_chunks");
  await system.db.query("ANALYZE comms.knowledge_sources");
  await system.db.query("ANALYZE comms.knowledge_words");
  await system.db.query("ANALYZE comms.knowledge_terms");
  process.stdout.write(`seeded ${chunks} chunks in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);

  const { questions } = JSON.parse(fixture("eval.json").toString()) as { questions: { q: string; typo?: boolean }[] };
  const timings: { q: string; mode: string; ms: number }[] = [];
  // The baseline: reading one source by id, the cheapest request on the same path (gateway,
  // RPC, one indexed row), interleaved with the searches so both see the same machine load.
  const baseline: number[] = [];
  const someSource = (await tenant.owner.get("/api/knowledge-base/sources?page_size=1")).body.items[0].id as string;
  // One warm-up round, not counted.
  for (let round = 0; round <= rounds; round++) {
    for (const { q } of questions) {
      const t0 = performance.now();
      const res = await tenant.owner.post("/api/knowledge-base/search", { query: q, top_k: 5 });
      const ms = performance.now() - t0;
      if (res.status !== 200) throw new Error(`search ${q}: ${res.status} ${JSON.stringify(res.body)}`);
      const t1 = performance.now();
      await tenant.owner.get(`/api/knowledge-base/sources/${someSource}`);
      if (round > 0) {
        timings.push({ q, mode: res.body.mode, ms });
        baseline.push(performance.now() - t1);
      }
    }
  }
  const percentile = (values: number[], p: number) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
  };
  process.stdout.write(`\n| requests | n | p50 ms | p95 ms | p99 ms | max ms |\n|---|---|---|---|---|---|\n`);
  const row = (name: string, ms: number[]) =>
    process.stdout.write(
      `| ${name} | ${ms.length} | ${percentile(ms, 50).toFixed(1)} | ${percentile(ms, 95).toFixed(1)} | ${percentile(ms, 99).toFixed(1)} | ${Math.max(...ms).toFixed(1)} |\n`,
    );
  row(
    "search, all",
    timings.map((t) => t.ms),
  );
  row(
    "search, fulltext",
    timings.filter((t) => t.mode === "fulltext").map((t) => t.ms),
  );
  row(
    "search, fuzzy",
    timings.filter((t) => t.mode === "fuzzy").map((t) => t.ms),
  );
  row("baseline: GET one source", baseline);
  const all = timings.map((t) => t.ms);
  process.stdout.write(
    `\nsearch / baseline: p50 ${(percentile(all, 50) / percentile(baseline, 50)).toFixed(1)}x, p99 ${(percentile(all, 99) / percentile(baseline, 99)).toFixed(1)}x\n`,
  );
  const slowest = new Map<string, number>();
  for (const t of timings) slowest.set(t.q, Math.max(slowest.get(t.q) ?? 0, t.ms));
  process.stdout.write(
    `\nslowest questions: ${[...slowest.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5)
      .map(([q, ms]) => `${q} (${ms.toFixed(1)} ms)`)
      .join("; ")}\n`,
  );
} finally {
  await system.stop();
  await database.drop();
}
