import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  anonymousClient,
  expect401,
  expect422,
  expectDetail,
  expectRecent,
  expectStatus,
  idsOf,
  tenantFactory,
  UNKNOWN_ID,
  UUID_PATTERN,
} from "@voiceops/platform/testing";
import {
  createSource,
  readySource,
  RESULT_KEYS,
  search,
  SEARCH,
  settled,
  SOURCE_KEYS,
  SOURCES,
  type Source,
} from "./knowledge-helpers.js";

// HTTP tests of the knowledge base on the shared test system, which runs without
// KB_ALLOW_PRIVATE_URLS: text sources, the refusal of private URLs, listing, deletion and
// search. URL fetching and file types are tested in knowledge-web.http.test.ts.

const tenant = tenantFactory();
const fixture = (name: string) => readFileSync(new URL(`./fixtures/knowledge/${name}`, import.meta.url), "utf8");

describe("authentication", () => {
  it.each([
    ["GET", SOURCES],
    ["POST", SOURCES],
    ["GET", `${SOURCES}/${UNKNOWN_ID}`],
    ["DELETE", `${SOURCES}/${UNKNOWN_ID}`],
    ["POST", SEARCH],
  ])("%s %s without a key is 401", async (method, path) => {
    await expect401(anonymousClient(), method, path, { type: "text", title: "x", text: "x", query: "x" });
  });
});

describe("text sources", () => {
  it("answers 201 processing, then ingests the text until the source is ready", async () => {
    const t = await tenant();
    const text = fixture("price-list.md");
    const res = await t.owner.post<Source>(SOURCES, { type: "text", title: "  Price list ", text });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(SOURCE_KEYS);
    expect(res.body).toMatchObject({
      type: "text",
      title: "Price list",
      url: null,
      filename: null,
      content_type: null,
      status: "processing",
      error: null,
      chunk_count: 0,
      bytes: Buffer.byteLength(text),
    });
    expect(res.body.id).toMatch(UUID_PATTERN);
    expectRecent(res.body.created_at);

    const ready = await settled(t.owner, res.body.id);
    expect(ready).toMatchObject({
      id: res.body.id,
      status: "ready",
      error: null,
      title: "Price list",
      bytes: Buffer.byteLength(text),
      created_at: res.body.created_at,
    });
    expect(ready.chunk_count).toBeGreaterThanOrEqual(8);
    expect(Date.parse(ready.updated_at)).toBeGreaterThanOrEqual(Date.parse(ready.created_at));

    const found = await search(t.owner, { query: "diagnostic fee" });
    expect(found.results[0]?.content).toContain("Our diagnostic fee is $89");
    expect(found.results[0]?.source_id).toBe(res.body.id);
    expect(found.results[0]?.source_title).toBe("Price list");
  });

  it("lets a member key add, read, search and delete sources", async () => {
    const t = await tenant();
    const source = await readySource(t.member, {
      type: "text",
      title: "Member notes",
      text: "Gate code for the shop is 4411.",
    });
    expect((await search(t.member, { query: "gate code" })).results).toHaveLength(1);
    expectStatus(await t.member.get(`${SOURCES}/${source.id}`), 200);
    expect((await t.member.delete(`${SOURCES}/${source.id}`)).status).toBe(204);
  });

  it("ignores unknown fields", async () => {
    const t = await tenant();
    const source = await createSource(t.owner, {
      type: "text",
      title: "Extra",
      text: "Body",
      status: "ready",
      chunk_count: 99,
      id: UNKNOWN_ID,
    });
    expect(source).toMatchObject({ status: "processing", chunk_count: 0 });
    expect(source.id).not.toBe(UNKNOWN_ID);
  });

  it.each([
    [{}, [{ loc: ["body", "type"], type: "missing" }]],
    [{ type: "file", title: "x", text: "x" }, [{ loc: ["body", "type"], type: "enum" }]],
    [{ type: "pdf" }, [{ loc: ["body", "type"], type: "enum" }]],
    [{ type: 5 }, [{ loc: ["body", "type"], type: "string_type" }]],
    [
      { type: "text" },
      [
        { loc: ["body", "title"], type: "missing" },
        { loc: ["body", "text"], type: "missing" },
      ],
    ],
    [
      { type: "text", title: "  ", text: "" },
      [
        { loc: ["body", "title"], type: "string_too_short" },
        { loc: ["body", "text"], type: "string_too_short" },
      ],
    ],
    [
      { type: "text", title: null, text: null },
      [
        { loc: ["body", "title"], type: "missing" },
        { loc: ["body", "text"], type: "missing" },
      ],
    ],
    [
      { type: "text", title: 12, text: ["a"] },
      [
        { loc: ["body", "title"], type: "string_type" },
        { loc: ["body", "text"], type: "string_type" },
      ],
    ],
    [{ type: "text", title: "x".repeat(501), text: "ok" }, [{ loc: ["body", "title"], type: "string_too_long" }]],
    [
      { type: "text", title: "Nul\u0000title", text: "a\u0000b" },
      [{ loc: ["body", "title"] }, { loc: ["body", "text"] }],
    ],
    [{ type: "url" }, [{ loc: ["body", "url"], type: "missing" }]],
    [{ type: "url", url: "" }, [{ loc: ["body", "url"], type: "string_too_short" }]],
    [{ type: "url", url: 42 }, [{ loc: ["body", "url"], type: "string_type" }]],
    [{ type: "url", url: "x".repeat(2049) }, [{ loc: ["body", "url"], type: "string_too_long" }]],
  ])("refuses %j with 422 naming the fields and stores nothing", async (body, expected) => {
    const t = await tenant();
    expect422(await t.owner.post(SOURCES, body), expected);
    expect((await t.owner.get(SOURCES)).body.total).toBe(0);
  });

  it("refuses a body that is not JSON or not an object", async () => {
    const t = await tenant();
    expect((await t.owner.request("POST", SOURCES, { rawBody: "{not json" })).status).toBe(422);
    expect422(await t.owner.request("POST", SOURCES, { rawBody: "[1, 2]" }), [{ loc: ["body"] }]);
  });
});

describe("URL safety (private addresses not allowed)", () => {
  it.each([
    ["ftp://example.com/prices.txt", "must use http or https"],
    ["file:///etc/passwd", "must use http or https"],
    ["not a url", "is not a valid URL"],
    ["http://127.0.0.1:8080/admin", "loopback, private or link-local"],
    ["http://localhost/", "loopback, private or link-local"],
    ["http://[::1]/", "loopback, private or link-local"],
    ["http://10.0.0.8/internal", "loopback, private or link-local"],
    ["http://192.168.1.1/", "loopback, private or link-local"],
    ["http://169.254.169.254/latest/meta-data/", "loopback, private or link-local"],
    ["http://[::ffff:127.0.0.1]/", "loopback, private or link-local"],
    ["http://2130706433/", "loopback, private or link-local"],
  ])("refuses %s with 422 on url", async (url, why) => {
    const t = await tenant();
    const [entry] = expect422(await t.owner.post(SOURCES, { type: "url", url }), [
      { loc: ["body", "url"], type: "value_error" },
    ]);
    expect(entry?.msg).toContain(why);
    expect((await t.owner.get(SOURCES)).body.total).toBe(0);
  });
});

describe("GET and DELETE /api/knowledge-base/sources/{id}", () => {
  it("answers 404 for an unknown id and for another organization's source, 422 for a malformed id", async () => {
    const a = await tenant();
    const b = await tenant();
    const theirs = await createSource(b.owner, { type: "text", title: "Theirs", text: "Private prices" });
    for (const id of [UNKNOWN_ID, theirs.id]) {
      expectDetail(await a.owner.get(`${SOURCES}/${id}`), 404);
      expectDetail(await a.owner.delete(`${SOURCES}/${id}`), 404);
    }
    expect422(await a.owner.get(`${SOURCES}/not-a-uuid`), [{ loc: ["path", "source_id"], type: "uuid_parsing" }]);
    expect422(await a.owner.delete(`${SOURCES}/123`), [{ loc: ["path", "source_id"], type: "uuid_parsing" }]);
    expectStatus(await b.owner.get(`${SOURCES}/${theirs.id}`), 200);
  });

  it("deletes a source with its chunks: searches stop finding them at once", async () => {
    const t = await tenant();
    const kept = await readySource(t.owner, { type: "text", title: "Kept", text: "Furnace tune-up is $129." });
    const gone = await readySource(t.owner, {
      type: "text",
      title: "Gone",
      text: "Furnace replacement starts at $4,800.",
    });
    expect((await search(t.owner, { query: "furnace" })).results).toHaveLength(2);
    expect((await t.owner.delete(`${SOURCES}/${gone.id}`)).status).toBe(204);
    expectDetail(await t.owner.get(`${SOURCES}/${gone.id}`), 404);
    expectDetail(await t.owner.delete(`${SOURCES}/${gone.id}`), 404);
    const after = await search(t.owner, { query: "furnace" });
    expect(after.results.map((r) => r.source_id)).toEqual([kept.id]);
    expect((await search(t.owner, { query: "replacement" })).results).toEqual([]);
  });

  it("deletes a source that is still processing", async () => {
    const t = await tenant();
    const source = await createSource(t.owner, {
      type: "text",
      title: "Short lived",
      text: "Lorem ipsum dolor sit amet.",
    });
    expect((await t.owner.delete(`${SOURCES}/${source.id}`)).status).toBe(204);
    expectDetail(await t.owner.get(`${SOURCES}/${source.id}`), 404);
  });
});

describe("GET /api/knowledge-base/sources", () => {
  it("pages through sources newest first, with filters", async () => {
    const t = await tenant();
    const first = await readySource(t.owner, { type: "text", title: "Alpha prices", text: "Alpha." });
    const second = await readySource(t.owner, { type: "text", title: "Beta policies", text: "Beta." });
    const third = await createSource(t.owner, { type: "text", title: "Gamma area", text: "Gamma." });
    const all = expectStatus(await t.owner.get(SOURCES), 200);
    expect(all).toMatchObject({ total: 3, page: 1, page_size: 50 });
    expect(idsOf(all.items)).toEqual([third.id, second.id, first.id]);
    expect(Object.keys(all.items[0]).sort()).toEqual(SOURCE_KEYS);

    const paged = expectStatus(await t.owner.get(`${SOURCES}?page=2&page_size=2`), 200);
    expect(paged).toMatchObject({ total: 3, page: 2, page_size: 2 });
    expect(idsOf(paged.items)).toEqual([first.id]);
    expect(expectStatus(await t.owner.get(`${SOURCES}?page=5`), 200)).toMatchObject({ items: [], total: 3 });

    await settled(t.owner, third.id);
    expect(idsOf(expectStatus(await t.owner.get(`${SOURCES}?status=ready&type=text`), 200).items)).toEqual([
      third.id,
      second.id,
      first.id,
    ]);
    expect(expectStatus(await t.owner.get(`${SOURCES}?status=error`), 200).total).toBe(0);
    expect(expectStatus(await t.owner.get(`${SOURCES}?type=url`), 200).total).toBe(0);
    expect(idsOf(expectStatus(await t.owner.get(`${SOURCES}?search=BETA`), 200).items)).toEqual([second.id]);
  });

  it("never lists another organization's sources", async () => {
    const a = await tenant();
    const b = await tenant();
    await createSource(b.owner, { type: "text", title: "Other org", text: "Hidden." });
    expect(expectStatus(await a.owner.get(SOURCES), 200)).toEqual({ items: [], total: 0, page: 1, page_size: 50 });
  });

  it.each([
    ["page=0", ["query", "page"]],
    ["page_size=101", ["query", "page_size"]],
    ["page_size=abc", ["query", "page_size"]],
    ["status=done", ["query", "status"]],
    ["type=pdf", ["query", "type"]],
    ["search=" + "x".repeat(201), ["query", "search"]],
    ["search=a%00b", ["query", "search"]],
  ])("refuses %s with 422", async (query, loc) => {
    const t = await tenant();
    expect422(await t.owner.get(`${SOURCES}?${query}`), [{ loc }]);
  });
});

describe("POST /api/knowledge-base/search", () => {
  // One organization with the three business documents, shared by the read-only tests below.
  let shared: Promise<{ client: ReturnType<typeof anonymousClient>; ids: Record<string, string> }> | undefined;
  function knowledge() {
    shared ??= (async () => {
      const t = await tenant();
      const [prices, area, faq] = await Promise.all([
        readySource(t.owner, { type: "text", title: "Price list", text: fixture("price-list.md") }),
        // The service-area page as text: its HTML tags are read as words, which is harmless here.
        readySource(t.owner, {
          type: "text",
          title: "Service area",
          text: fixture("service-area.html").replace(/<[^>]+>/g, " "),
        }),
        readySource(t.owner, { type: "text", title: "Policies", text: fixture("policies-faq.md") }),
      ]);
      return { client: t.owner, ids: { prices: prices.id, area: area.id, faq: faq.id } };
    })();
    return shared;
  }

  it("finds the chunk that answers a question, with highlights and a 0..1 score, best first", async () => {
    const { client, ids } = await knowledge();
    const res = await client.post(SEARCH, { query: "What's your diagnostic fee?" });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["mode", "query", "results"]);
    expect(res.body.query).toBe("What's your diagnostic fee?");
    expect(res.body.mode).toBe("fulltext");
    const [best] = res.body.results;
    expect(Object.keys(best).sort()).toEqual(RESULT_KEYS);
    expect(best).toMatchObject({ source_id: ids.prices, source_title: "Price list" });
    expect(best.chunk_id).toMatch(UUID_PATTERN);
    expect(best.content).toContain("Our diagnostic fee is $89");
    expect(best.highlight).toContain("<b>diagnostic</b>");
    expect(best.highlight).toContain("<b>fee</b>");
    const scores = res.body.results.map((r: { score: number }) => r.score);
    for (const score of scores) {
      expect(score).toBeGreaterThan(0);
      expect(score).toBeLessThanOrEqual(1);
    }
    expect([...scores].sort((x, y) => y - x)).toEqual(scores);
  });

  it("answers questions worded unlike the documents", async () => {
    const { client } = await knowledge();
    const cases: [string, string][] = [
      ["Do you service Oak Park?", "we serve Oak Park"],
      ["Do you haul away the old water heater?", "Removal and disposal of the old water heater"],
      ["Is there a deposit for a new furnace?", "require a 25% deposit"],
    ];
    for (const [query, answer] of cases) {
      const res = await search(client, { query });
      expect(
        res.results.slice(0, 3).some((r) => r.content.includes(answer)),
        `${query}: ${JSON.stringify(res.results.map((r) => r.content.slice(0, 60)))}`,
      ).toBe(true);
    }
  });

  it.each([
    ["diagnostc fee", "Our diagnostic fee is $89"],
    ["tankles water heatr", "Tankless gas water heater"],
    ["warrenty on repairs", "All repairs carry a one-year warranty"],
    ["Comfrot Club", "The Comfort Club costs $14.95"],
    ["Evanstn", "we serve Evanston"],
  ])("finds %j despite the misspelling (fuzzy mode)", async (query, answer) => {
    const { client } = await knowledge();
    const res = await search(client, { query });
    expect(res.mode).toBe("fuzzy");
    expect(res.results[0]?.content).toContain(answer);
  });

  it("honours websearch syntax: quoted phrases, or, -word", async () => {
    const { client } = await knowledge();
    const phrase = await search(client, { query: '"battery backup"' });
    expect(phrase.mode).toBe("fulltext");
    expect(phrase.results).toHaveLength(1);
    expect(phrase.results[0]?.content).toContain("Battery backup sump pump system: $1,195");
    const either = await search(client, { query: "Schaumburg or Evanston", top_k: 10 });
    expect(either.results.some((r) => r.content.includes("Schaumburg"))).toBe(true);
    expect(either.results.some((r) => r.content.includes("Evanston"))).toBe(true);
    const without = await search(client, { query: "tune-up -furnace", top_k: 20 });
    for (const r of without.results) expect(r.content.toLowerCase()).not.toContain("furnace");
  });

  it("returns at most top_k results (5 by default)", async () => {
    const { client } = await knowledge();
    expect((await search(client, { query: "water" })).results).toHaveLength(5);
    expect((await search(client, { query: "water", top_k: 2 })).results).toHaveLength(2);
    const many = await search(client, { query: "service", top_k: 20 });
    expect(many.results.length).toBeGreaterThan(5);
    expect(many.results.length).toBeLessThanOrEqual(20);
    expect(new Set(many.results.map((r) => r.chunk_id)).size).toBe(many.results.length);
  });

  it("keeps only results scoring at least min_score", async () => {
    const { client } = await knowledge();
    const all = await search(client, { query: "water heater", top_k: 20 });
    const cut = all.results[2]?.score ?? 1;
    const kept = await search(client, { query: "water heater", top_k: 20, min_score: cut });
    expect(kept.results.length).toBeGreaterThanOrEqual(3);
    for (const r of kept.results) expect(r.score).toBeGreaterThanOrEqual(cut);
    expect(kept.results.length).toBe(all.results.filter((r) => r.score >= cut).length);
    expect((await search(client, { query: "water heater", min_score: 1 })).results).toEqual([]);
  });

  it("searches only the given sources", async () => {
    const { client, ids } = await knowledge();
    const res = await search(client, { query: "fee", source_ids: [ids.faq], top_k: 20 });
    expect(res.results.length).toBeGreaterThan(0);
    for (const r of res.results) expect(r.source_id).toBe(ids.faq);
    expect((await search(client, { query: "fee", source_ids: [UNKNOWN_ID] })).results).toEqual([]);
  });

  it("answers an empty result for a query with no match or only stop words", async () => {
    const { client } = await knowledge();
    expect((await search(client, { query: "xylophone zeppelin" })).results).toEqual([]);
    expect((await search(client, { query: "what is the" })).results).toEqual([]);
  });

  it("never returns another organization's chunks, even given its source ids", async () => {
    const { ids } = await knowledge();
    const other = await tenant();
    expect((await search(other.owner, { query: "diagnostic fee" })).results).toEqual([]);
    expect((await search(other.owner, { query: "diagnostc fee" })).results).toEqual([]);
    expect((await search(other.owner, { query: "diagnostic", source_ids: [ids.prices, ids.faq] })).results).toEqual([]);
    const own = await readySource(other.owner, {
      type: "text",
      title: "Own",
      text: "Our diagnostic fee is $99 in this other business.",
    });
    const res = await search(other.owner, { query: "diagnostic fee", top_k: 20 });
    expect(res.results.map((r) => r.source_id)).toEqual([own.id]);
  });

  it.each([
    [{}, [{ loc: ["body", "query"], type: "missing" }]],
    [{ query: "" }, [{ loc: ["body", "query"], type: "string_too_short" }]],
    [{ query: "   " }, [{ loc: ["body", "query"], type: "string_too_short" }]],
    [{ query: "x".repeat(1001) }, [{ loc: ["body", "query"], type: "string_too_long" }]],
    [{ query: 7 }, [{ loc: ["body", "query"], type: "string_type" }]],
    [{ query: "fee\u0000" }, [{ loc: ["body", "query"] }]],
    [{ query: "fee", top_k: 0 }, [{ loc: ["body", "top_k"], type: "greater_than_equal" }]],
    [{ query: "fee", top_k: 21 }, [{ loc: ["body", "top_k"], type: "less_than_equal" }]],
    [{ query: "fee", top_k: "many" }, [{ loc: ["body", "top_k"], type: "int_parsing" }]],
    [{ query: "fee", top_k: 2.5 }, [{ loc: ["body", "top_k"], type: "int_from_float" }]],
    [{ query: "fee", min_score: -0.1 }, [{ loc: ["body", "min_score"], type: "greater_than_equal" }]],
    [{ query: "fee", min_score: 1.5 }, [{ loc: ["body", "min_score"], type: "less_than_equal" }]],
    [{ query: "fee", min_score: "high" }, [{ loc: ["body", "min_score"], type: "float_parsing" }]],
    [{ query: "fee", source_ids: "abc" }, [{ loc: ["body", "source_ids"], type: "list_type" }]],
    [{ query: "fee", source_ids: ["not-a-uuid"] }, [{ loc: ["body", "source_ids", 0], type: "uuid_parsing" }]],
    [{ query: "", top_k: 0 }, [{ loc: ["body", "query"] }, { loc: ["body", "top_k"] }]],
  ])("refuses %j with 422", async (body, expected) => {
    const t = await tenant();
    expect422(await t.owner.post(SEARCH, body), expected);
  });
});
