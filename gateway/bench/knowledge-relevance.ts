import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { AdminClient, eventually, newTenant, testEnv, type ApiClient } from "@voiceops/platform/testing";
import { startSystem } from "../src/system.js";

// Relevance of knowledge-base search on the evaluation set: three business documents (a price
// list in Markdown, a service-area web page fetched over HTTP, a policies FAQ) and questions a
// caller asks, each with the passage that answers it. Reports recall@5 (the answer is in the
// first five results) and MRR (mean of 1/rank of the first answering result), for the plain
// questions, the misspelled ones and all together. Embedded by default; on DATABASE_URL and
// NATS_URL when they are set. Usage: npm run bench:knowledge-relevance [-- --verbose]

const FIXTURES = new URL("../../services/comms/test/fixtures/knowledge/", import.meta.url);
const verbose = process.argv.includes("--verbose");

interface Question {
  q: string;
  answer: string;
  typo?: boolean;
}

function fixture(name: string): string {
  return readFileSync(new URL(name, FIXTURES), "utf8");
}

async function ingest(client: ApiClient, body: Record<string, unknown>): Promise<string> {
  const created = await client.post("/api/knowledge-base/sources", body);
  if (created.status !== 201) throw new Error(`create source: ${created.status} ${JSON.stringify(created.body)}`);
  const id = created.body.id as string;
  const source = await eventually(async () => {
    const read = await client.get(`/api/knowledge-base/sources/${id}`);
    return read.body.status === "processing" ? undefined : read.body;
  }, 60_000);
  if (source.status !== "ready")
    throw new Error(`source ${body.title ?? body.url} ended in ${source.status}: ${source.error}`);
  return id;
}

const page = fixture("service-area.html");
const server = createServer((_req, res) => {
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
  res.end(page);
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const system = await startSystem({
  env: testEnv({ KB_ALLOW_PRIVATE_URLS: "true", RATE_LIMIT_PER_MINUTE: "100000000" }),
  inMemory: true,
});
try {
  const tenant = await newTenant(system.url, new AdminClient(system.adminUrl, system.adminToken));
  const client = tenant.owner;
  await ingest(client, { type: "text", title: "Price list", text: fixture("price-list.md") });
  await ingest(client, { type: "url", url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/service-area` });
  await ingest(client, { type: "text", title: "Policies and FAQ", text: fixture("policies-faq.md") });

  const { questions } = JSON.parse(fixture("eval.json")) as { questions: Question[] };
  const groups = new Map<string, { n: number; hits: number; rr: number }>();
  const modes = new Map<string, number>();
  for (const question of questions) {
    const res = await client.post("/api/knowledge-base/search", { query: question.q, top_k: 5 });
    if (res.status !== 200) throw new Error(`search ${question.q}: ${res.status} ${JSON.stringify(res.body)}`);
    const results = res.body.results as { content: string; score: number; source_title: string }[];
    const rank = results.findIndex((r) => r.content.includes(question.answer)) + 1;
    modes.set(res.body.mode, (modes.get(res.body.mode) ?? 0) + 1);
    for (const group of ["all", question.typo ? "misspelled" : "plain"]) {
      const g = groups.get(group) ?? { n: 0, hits: 0, rr: 0 };
      g.n++;
      if (rank > 0) {
        g.hits++;
        g.rr += 1 / rank;
      }
      groups.set(group, g);
    }
    if (verbose || rank === 0) {
      process.stdout.write(`${rank === 0 ? "MISS" : `#${rank}  `} [${res.body.mode}] ${question.q}\n`);
      if (verbose || rank === 0) {
        for (const r of results)
          process.stdout.write(`        ${r.score.toFixed(3)} ${r.content.slice(0, 90).replace(/\s+/g, " ")}\n`);
      }
    }
  }
  process.stdout.write(
    `\nstorage: ${system.db.kind}; modes: ${JSON.stringify(Object.fromEntries(modes))}\n\n| questions | n | recall@5 | MRR |\n|---|---|---|---|\n`,
  );
  for (const name of ["plain", "misspelled", "all"]) {
    const g = groups.get(name);
    if (!g) continue;
    process.stdout.write(`| ${name} | ${g.n} | ${(g.hits / g.n).toFixed(3)} | ${(g.rr / g.n).toFixed(3)} |\n`);
  }
} finally {
  await system.stop();
  server.close();
}
