import { describe, expect, it } from "vitest";
import {
  anonymousClient,
  expect401,
  expect422,
  expectDetail,
  expectRecent,
  expectStatus,
  RFC3339_UTC,
  tenantFactory,
  unknownKeyClient,
  UUID_PATTERN,
  type ApiClient,
} from "@voiceops/platform/testing";

// HTTP tests of the do-not-call list and the dispositions, through the gateway. Every test
// works in its own organization.

const tenant = tenantFactory({ timezone: "America/New_York" });

interface DncEntry {
  id: string;
  phone_number: string;
  reason: string | null;
  source: string;
  expires_at: string | null;
  created_at: string;
  updated_at: string;
}

async function bulk(client: ApiClient, body: Record<string, unknown>) {
  return expectStatus<{ added: number; already_listed: number; invalid: { value: string; reason: string }[] }>(
    await client.post("/api/dnc/bulk", body),
    200,
  );
}

async function check(client: ApiClient, phone: string) {
  return expectStatus<{ phone_number: string; blocked: boolean; entry: DncEntry | null }>(
    await client.get(`/api/dnc/check/${encodeURIComponent(phone)}`),
    200,
  );
}

describe("authentication", () => {
  it.each([
    ["GET", "/api/dispositions"],
    ["GET", "/api/dnc"],
    ["GET", "/api/dnc/check/5550100"],
    ["POST", "/api/dnc/bulk"],
    ["DELETE", "/api/dnc/5550100"],
  ])("%s %s is 401 without a key and with an unknown key", async (method, path) => {
    await expect401(anonymousClient(), method, path, { phone_numbers: ["+15550100"] });
    await expect401(unknownKeyClient(), method, path, { phone_numbers: ["+15550100"] });
  });
});

describe("GET /api/dispositions", () => {
  it("lists the built-in dispositions with their outcome and finality", async () => {
    const t = await tenant();
    const body = expectStatus(await t.member.get("/api/dispositions"), 200);
    expect(body.total).toBe(11);
    expect(body.items.map((d: { code: string }) => d.code)).toEqual([
      "appointment_booked",
      "service_request_created",
      "callback_requested",
      "transferred",
      "not_interested",
      "do_not_call",
      "wrong_number",
      "voicemail",
      "no_answer",
      "busy",
      "failed",
    ]);
    for (const item of body.items) {
      expect(Object.keys(item).sort()).toEqual(["code", "is_final", "label", "outcome"]);
      expect(["positive", "negative", "neutral", "retry", "dnc"]).toContain(item.outcome);
    }
    const byCode = Object.fromEntries(body.items.map((d: { code: string }) => [d.code, d]));
    expect(byCode.do_not_call).toMatchObject({ outcome: "dnc", is_final: true });
    expect(byCode.no_answer).toMatchObject({ outcome: "retry", is_final: false });
    expect(byCode.appointment_booked).toMatchObject({ outcome: "positive", is_final: true });
  });
});

describe("POST /api/dnc/bulk (JSON)", () => {
  it("adds numbers in E.164 with the org's country, counting repeats and reporting invalid values", async () => {
    const t = await tenant();
    const res = await bulk(t.owner, {
      phone_numbers: ["(555) 010-2000", "+1 555 010 2001", "555-010-2000", "not a phone", "", "12"],
      reason: "Asked by phone",
    });
    expect(res.added).toBe(2);
    expect(res.already_listed).toBe(1);
    expect(res.invalid).toEqual([
      { value: "not a phone", reason: "not a valid phone number" },
      { value: "", reason: "empty value" },
      { value: "12", reason: "not a valid phone number" },
    ]);
    const again = await bulk(t.owner, { phone_numbers: ["+15550102000", "+15550102002"], source: "caller_request" });
    expect(again).toEqual({ added: 1, already_listed: 1, invalid: [] });
    const list = expectStatus(await t.owner.get("/api/dnc"), 200);
    expect(list).toMatchObject({ total: 3, page: 1, page_size: 50 });
    expect(list.items.map((e: DncEntry) => e.phone_number).sort()).toEqual([
      "+15550102000",
      "+15550102001",
      "+15550102002",
    ]);
    const first: DncEntry = list.items.find((e: DncEntry) => e.phone_number === "+15550102000");
    expect(Object.keys(first).sort()).toEqual([
      "created_at",
      "expires_at",
      "id",
      "phone_number",
      "reason",
      "source",
      "updated_at",
    ]);
    expect(first).toMatchObject({ reason: "Asked by phone", source: "manual", expires_at: null });
    expect(first.id).toMatch(UUID_PATTERN);
    expectRecent(first.created_at);
    expect(list.items.find((e: DncEntry) => e.phone_number === "+15550102002").source).toBe("caller_request");
  });

  it("adds 10,000 numbers in one call", async () => {
    const t = await tenant();
    const numbers = Array.from({ length: 10_000 }, (_, i) => `+1555${String(1_000_000 + i).padStart(7, "0")}`);
    const res = await bulk(t.owner, { phone_numbers: numbers, source: "import" });
    expect(res).toEqual({ added: 10_000, already_listed: 0, invalid: [] });
    expect(expectStatus(await t.owner.get("/api/dnc?page_size=1"), 200).total).toBe(10_000);
    expect((await check(t.owner, numbers[9_999] as string)).blocked).toBe(true);
    const again = await bulk(t.owner, { phone_numbers: numbers.slice(0, 5_000) });
    expect(again).toEqual({ added: 0, already_listed: 5_000, invalid: [] });
  });

  it("answers 422 for an empty list, too many numbers, wrong types, a bad source or a past expiry, and stores nothing", async () => {
    const t = await tenant();
    expect422(await t.owner.post("/api/dnc/bulk", { phone_numbers: [] }), [
      { loc: ["body", "phone_numbers"], type: "too_short" },
    ]);
    expect422(await t.owner.post("/api/dnc/bulk", {}), [{ loc: ["body", "phone_numbers"] }]);
    expect422(
      await t.owner.post("/api/dnc/bulk", { phone_numbers: Array.from({ length: 10_001 }, (_, i) => `+1555${i}`) }),
      [{ loc: ["body", "phone_numbers"], type: "too_long" }],
    );
    expect422(await t.owner.post("/api/dnc/bulk", { phone_numbers: "+15550100" }), [
      { loc: ["body", "phone_numbers"], type: "list_type" },
    ]);
    expect422(await t.owner.post("/api/dnc/bulk", { phone_numbers: [15550100] }), [
      { loc: ["body", "phone_numbers", 0], type: "string_type" },
    ]);
    expect422(await t.owner.post("/api/dnc/bulk", { phone_numbers: ["+15550100"], source: "robot" }), [
      { loc: ["body", "source"], type: "enum" },
    ]);
    expect422(await t.owner.post("/api/dnc/bulk", { phone_numbers: ["+15550100"], reason: "x".repeat(501) }), [
      { loc: ["body", "reason"], type: "string_too_long" },
    ]);
    expect422(await t.owner.post("/api/dnc/bulk", { phone_numbers: ["+15550100"], expires_at: "tomorrow" }), [
      { loc: ["body", "expires_at"] },
    ]);
    expect422(
      await t.owner.post("/api/dnc/bulk", { phone_numbers: ["+15550100"], expires_at: "2001-01-01T00:00:00Z" }),
      [{ loc: ["body", "expires_at"] }],
    );
    expect422(await t.owner.request("POST", "/api/dnc/bulk", { rawBody: "{not json" }), [
      { loc: ["body"], type: "json_invalid" },
    ]);
    expect(expectStatus(await t.owner.get("/api/dnc"), 200).total).toBe(0);
  });
});

describe("GET /api/dnc/check/{phone}", () => {
  it("says whether a number is blocked, whatever its formatting", async () => {
    const t = await tenant();
    await bulk(t.owner, { phone_numbers: ["+15550103000"], reason: "Complained" });
    const blocked = await check(t.owner, "(555) 010-3000");
    expect(blocked).toMatchObject({
      phone_number: "+15550103000",
      blocked: true,
      entry: { phone_number: "+15550103000", reason: "Complained", source: "manual" },
    });
    expect(await check(t.owner, "+15550103001")).toEqual({ phone_number: "+15550103001", blocked: false, entry: null });
  });

  it("does not block with an expired entry, and a new add renews it", async () => {
    const t = await tenant();
    const soon = new Date(Date.now() + 1_500).toISOString();
    await bulk(t.owner, { phone_numbers: ["+15550104000"], expires_at: soon });
    expect((await check(t.owner, "+15550104000")).entry?.expires_at).toMatch(RFC3339_UTC);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await check(t.owner, "+15550104000")).toEqual({ phone_number: "+15550104000", blocked: false, entry: null });
    expect(await bulk(t.owner, { phone_numbers: ["+15550104000"] })).toEqual({
      added: 1,
      already_listed: 0,
      invalid: [],
    });
    expect(await check(t.owner, "+15550104000")).toMatchObject({ blocked: true, entry: { expires_at: null } });
  });

  it("answers 422 on [path, phone] for an unparsable number", async () => {
    const t = await tenant();
    expect422(await t.owner.get("/api/dnc/check/not-a-phone"), [{ loc: ["path", "phone"] }]);
    expect422(await t.owner.get("/api/dnc/check/12"), [{ loc: ["path", "phone"] }]);
  });

  it("keeps organizations apart", async () => {
    const [mine, theirs] = await Promise.all([tenant(), tenant()]);
    await bulk(theirs.owner, { phone_numbers: ["+15550105000"] });
    expect((await check(mine.owner, "+15550105000")).blocked).toBe(false);
    expect(expectStatus(await mine.owner.get("/api/dnc"), 200).total).toBe(0);
    expectDetail(await mine.owner.delete("/api/dnc/+15550105000"), 404);
    expect((await check(theirs.owner, "+15550105000")).blocked).toBe(true);
  });
});

describe("GET /api/dnc", () => {
  it("pages newest first and searches numbers ignoring formatting, and reasons", async () => {
    const t = await tenant();
    for (const [phone, reason] of [
      ["+15550106001", "Angry"],
      ["+15550106002", "Moved"],
      ["+15550107003", "Angry again"],
    ]) {
      await bulk(t.owner, { phone_numbers: [phone], reason });
    }
    const page1 = expectStatus(await t.owner.get("/api/dnc?page_size=2"), 200);
    expect(page1).toMatchObject({ total: 3, page: 1, page_size: 2 });
    expect(page1.items.map((e: DncEntry) => e.phone_number)).toEqual(["+15550107003", "+15550106002"]);
    const page2 = expectStatus(await t.owner.get("/api/dnc?page_size=2&page=2"), 200);
    expect(page2.items.map((e: DncEntry) => e.phone_number)).toEqual(["+15550106001"]);
    const past = expectStatus(await t.owner.get("/api/dnc?page=9"), 200);
    expect(past).toMatchObject({ items: [], total: 3 });
    const digits = expectStatus(await t.owner.get(`/api/dnc?search=${encodeURIComponent("(555) 010-6")}`), 200);
    expect(digits.items.map((e: DncEntry) => e.phone_number)).toEqual(["+15550106002", "+15550106001"]);
    const reason = expectStatus(await t.owner.get("/api/dnc?search=angry"), 200);
    expect(reason.items.map((e: DncEntry) => e.phone_number)).toEqual(["+15550107003", "+15550106001"]);
  });

  it("answers 422 for out-of-range paging", async () => {
    const t = await tenant();
    expect422(await t.owner.get("/api/dnc?page=0&page_size=101"), [
      { loc: ["query", "page"], type: "greater_than_equal" },
      { loc: ["query", "page_size"], type: "less_than_equal" },
    ]);
    expect422(await t.owner.get("/api/dnc?page=x"), [{ loc: ["query", "page"], type: "int_parsing" }]);
  });
});

describe("DELETE /api/dnc/{phone}", () => {
  it("takes a number off the list (204), then 404", async () => {
    const t = await tenant();
    await bulk(t.owner, { phone_numbers: ["+15550108000"] });
    const res = await t.member.delete(`/api/dnc/${encodeURIComponent("(555) 010-8000")}`);
    expect(res.status).toBe(204);
    expect((await check(t.owner, "+15550108000")).blocked).toBe(false);
    expectDetail(await t.owner.delete("/api/dnc/+15550108000"), 404);
    expect422(await t.owner.delete("/api/dnc/nope"), [{ loc: ["path", "phone"] }]);
  });
});

describe("POST /api/dnc/bulk (CSV)", () => {
  const csv = (client: ApiClient, text: string, query = "", type = "text/csv") =>
    client.request("POST", `/api/dnc/bulk${query}`, { rawBody: text, headers: { "content-type": type } });

  it("reads the phone_number column of a text/csv body; reason, source and expiry come from the query", async () => {
    const t = await tenant();
    const res = await csv(
      t.owner,
      'name,Phone_Number\r\nAnn,(555) 010-9001\r\n"Doe, Jr.","+1 555 010 9002"\r\nBad,call me\r\n\r\nAgain,555-010-9001\r\n',
      "?reason=Imported%20list",
    );
    expect(expectStatus(res, 200)).toEqual({
      added: 2,
      already_listed: 1,
      invalid: [{ value: "call me", reason: "not a valid phone number" }],
    });
    const entry = (await check(t.owner, "+15550109002")).entry;
    expect(entry).toMatchObject({ reason: "Imported list", source: "import" });
    const manual = await csv(t.owner, "phone\n+15550109003\n", "?source=caller_request");
    expect(expectStatus(manual, 200).added).toBe(1);
    expect((await check(t.owner, "+15550109003")).entry?.source).toBe("caller_request");
  });

  it("takes the file part of a multipart form, with the other parts as fields", async () => {
    const t = await tenant();
    const form = new FormData();
    form.append("reason", "From the web form");
    form.append("file", new Blob(["phone_number\n+15550109101\n+15550109102\n"], { type: "text/csv" }), "dnc.csv");
    const res = await t.owner.upload("POST", "/api/dnc/bulk", form);
    expect(expectStatus(res, 200)).toEqual({ added: 2, already_listed: 0, invalid: [] });
    expect((await check(t.owner, "+15550109101")).entry?.reason).toBe("From the web form");
  });

  it("answers 422 for a file without a phone column, an empty or malformed file; 415 for another type; 413 above 2 MB", async () => {
    const t = await tenant();
    expect422(await csv(t.owner, "name,number\nAnn,+15550109201\n"), [{ loc: ["body", "file"], type: "value_error" }]);
    expect422(await csv(t.owner, ""), [{ loc: ["body", "file"] }]);
    expect422(await csv(t.owner, 'phone_number\n"+15550109202\n'), [{ loc: ["body", "file"], type: "value_error" }]);
    expect422(await csv(t.owner, "phone_number\n"), [{ loc: ["body", "file"], type: "too_short" }]);
    expectDetail(await csv(t.owner, "phone_number\n+15550109203\n", "", "application/xml"), 415);
    expectDetail(await csv(t.owner, `phone_number\n${"+15550109204\n".repeat(180_000)}`), 413);
    expect422(
      await csv(
        t.owner,
        `phone_number\n${Array.from({ length: 10_001 }, (_, i) => `+1555${String(2_000_000 + i)}`).join("\n")}\n`,
      ),
      [{ loc: ["body", "file"] }],
    );
    expect(expectStatus(await t.owner.get("/api/dnc"), 200).total).toBe(0);
  });
});
