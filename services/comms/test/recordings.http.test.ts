import http from "node:http";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ManualClock } from "@voiceops/platform";
import {
  anonymousClient,
  expect401,
  expectDetail,
  expectStatus,
  newTenant,
  startTestS3Server,
  tenantFactory,
  testEnv,
  AdminClient,
  type ApiClient,
  type Tenant,
  type TestS3Server,
} from "@voiceops/platform/testing";
import { startSystem, type RunningSystem } from "../../../gateway/src/system.js";

// Call recordings over HTTP: upload (streamed into the object store), a signed URL on every
// read that downloads the same bytes, expiry and tampering, and deletion with the call. On the
// shared system (file store, both modes), on a system with a clock the test moves, and on a
// system whose store is a real S3-compatible server.

const tenant = tenantFactory();
const internalKey = inject("internalApiKey");
const AUDIO = Buffer.from(Array.from({ length: 3000 }, (_, i) => i % 251));

async function endCall(
  client: ApiClient,
  sessionId: string,
  metadata: Record<string, unknown> = {},
  key = internalKey,
) {
  const res = await client.request("POST", "/api/activities", {
    body: { activity_type: "CALL_ENDED", session_id: sessionId, metadata },
    headers: { "x-internal-key": key },
  });
  return expectStatus(res, 201);
}

function putAudio(client: ApiClient, sessionId: string, body: string | Buffer, contentType = "audio/mpeg") {
  return client.upload("PUT", `/api/calls/${encodeURIComponent(sessionId)}/recording`, body, contentType);
}

async function upload(client: ApiClient, sessionId: string, bytes: Buffer = AUDIO, contentType = "audio/mpeg") {
  const res = await putAudio(client, sessionId, bytes, contentType);
  return expectStatus(res, 200) as { session_id: string; recording: string; bytes: number; content_type: string };
}

async function recordingUrl(client: ApiClient, sessionId: string) {
  return expectStatus(await client.get(`/api/calls/${encodeURIComponent(sessionId)}/recording`), 200) as {
    session_id: string;
    url: string;
    expires_at: string | null;
    content_type: string | null;
  };
}

async function download(url: string | URL): Promise<{ status: number; type: string | null; bytes: Buffer }> {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get("content-type"), bytes: Buffer.from(await res.arrayBuffer()) };
}

/** Sends a PUT that declares more bytes than the limit, without sending them. */
function declareTooLarge(client: ApiClient, sessionId: string): Promise<number> {
  const url = new URL(`${client.baseUrl}/api/calls/${sessionId}/recording`);
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: "PUT",
      headers: {
        "x-api-key": client.apiKey ?? "",
        "content-type": "audio/wav",
        "content-length": String(100 * 1024 * 1024 + 1),
      },
    });
    req.on("response", (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
      req.destroy();
    });
    req.on("error", (error) => (error.message.includes("socket hang up") ? undefined : reject(error)));
    req.write(Buffer.alloc(1024));
  });
}

describe("call recordings on the shared system", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await tenant();
  });

  it("uploads audio, and every read signs a URL that downloads the same bytes", async () => {
    await endCall(t.owner, "rec-1", { duration_seconds: 30 });
    const stored = await upload(t.owner, "rec-1");
    expect(stored).toEqual({
      session_id: "rec-1",
      recording: expect.stringMatching(new RegExp(`^uploads/${t.orgId}/`)),
      bytes: AUDIO.length,
      content_type: "audio/mpeg",
    });

    const first = await recordingUrl(t.member, "rec-1");
    expect(first).toMatchObject({ session_id: "rec-1", content_type: "audio/mpeg" });
    expect(Math.abs(Date.parse(first.expires_at ?? "") - (Date.now() + 900_000))).toBeLessThan(120_000);
    const got = await download(first.url);
    expect(got.status).toBe(200);
    expect(got.type).toBe("audio/mpeg");
    expect(got.bytes.equals(AUDIO)).toBe(true);

    const call = expectStatus(await t.owner.get("/api/calls/rec-1"), 200);
    expect(call).toMatchObject({ has_recording: true, recording: stored.recording });
    expect(expectStatus(await t.owner.get("/api/calls"), 200).items[0]).toMatchObject({
      session_id: "rec-1",
      has_recording: true,
    });
  });

  it("refuses a tampered URL", async () => {
    await endCall(t.owner, "rec-tamper");
    await upload(t.owner, "rec-tamper");
    const { url } = await recordingUrl(t.owner, "rec-tamper");
    const later = new URL(url);
    later.searchParams.set("expires", String(Number(later.searchParams.get("expires")) + 3600));
    expect((await download(later)).status).toBe(403);
    const resigned = new URL(url);
    resigned.searchParams.set("signature", "A".repeat(43));
    expect((await download(resigned)).status).toBe(403);
    const unsigned = new URL(url);
    unsigned.search = "";
    expect((await download(unsigned)).status).toBe(403);
    // The same signature does not open another object.
    await endCall(t.owner, "rec-other");
    const other = await upload(t.owner, "rec-other");
    const swapped = new URL(url);
    swapped.pathname = `/files/${other.recording}`;
    expect((await download(swapped)).status).toBe(403);
  });

  it("a new upload replaces the recording and deletes the old audio", async () => {
    await endCall(t.owner, "rec-replace");
    await upload(t.owner, "rec-replace", Buffer.from("first take"), "audio/wav");
    const old = await recordingUrl(t.owner, "rec-replace");
    const second = await upload(t.owner, "rec-replace", Buffer.from("second take"), "audio/ogg");
    const fresh = await recordingUrl(t.owner, "rec-replace");
    expect(fresh.content_type).toBe("audio/ogg");
    expect((await download(fresh.url)).bytes.toString()).toBe("second take");
    expect((await download(old.url)).status).toBe(404);
    expect(expectStatus(await t.owner.get("/api/calls/rec-replace"), 200).recording).toBe(second.recording);
  });

  it("deleting a call, alone or in bulk, deletes its stored recording", async () => {
    await endCall(t.owner, "rec-del-one");
    await upload(t.owner, "rec-del-one");
    const one = await recordingUrl(t.owner, "rec-del-one");
    expect(expectStatus(await t.owner.delete("/api/calls/rec-del-one"), 200).deleted_activities).toBe(1);
    expect((await download(one.url)).status).toBe(404);

    const bulk = await tenant();
    await endCall(bulk.owner, "rec-del-bulk", { duration_seconds: 2 });
    await upload(bulk.owner, "rec-del-bulk");
    const many = await recordingUrl(bulk.owner, "rec-del-bulk");
    expect(expectStatus(await bulk.owner.delete("/api/calls?max_duration=10"), 200)).toEqual({
      deleted_calls: 1,
      deleted_activities: 1,
    });
    expect((await download(many.url)).status).toBe(404);
  });

  it("415 for another media type, 413 above 100 MB, 404 for a session without a call", async () => {
    await endCall(t.owner, "rec-refused");
    const text = await putAudio(t.owner, "rec-refused", "text", "text/plain");
    expect(text.status).toBe(415);
    expect(Object.keys(text.body as object)).toEqual(["detail"]);
    const plain = await putAudio(t.owner, "rec-refused", "{}", "application/json");
    expect(plain.status).toBe(415);
    expect(await declareTooLarge(t.owner, "rec-refused")).toBe(413);
    expectDetail(await t.owner.get("/api/calls/rec-refused/recording"), 404);

    const missing = await putAudio(t.owner, "no-such-call", AUDIO);
    expect(missing.status).toBe(404);
    expect(Object.keys(missing.body as object)).toEqual(["detail"]);
    const other = await tenant();
    await endCall(other.owner, "rec-foreign");
    expect((await putAudio(t.owner, "rec-foreign", AUDIO)).status).toBe(404);
    expectDetail(await t.owner.get("/api/calls/rec-foreign/recording"), 404);
    const long = await putAudio(t.owner, "x".repeat(201), AUDIO);
    expect(long.status).toBe(422);
    expect((long.body as { detail: { loc: unknown[] }[] }).detail.map((d) => d.loc)).toEqual([["path", "session_id"]]);
    expect((await putAudio(anonymousClient(), "rec-refused", AUDIO)).status).toBe(401);
  });

  it("never signs another organization's object named in a call's metadata", async () => {
    const victim = await tenant();
    await endCall(victim.owner, "rec-victim");
    const stored = await upload(victim.owner, "rec-victim");
    await endCall(t.owner, "rec-thief", { recording: stored.recording });
    expectDetail(await t.owner.get("/api/calls/rec-thief/recording"), 404);
    // Nor deletes it with the call.
    expect(expectStatus(await t.owner.delete("/api/calls/rec-thief"), 200).deleted_activities).toBe(1);
    expect((await download((await recordingUrl(victim.owner, "rec-victim")).url)).status).toBe(200);
  });

  it("401 without an API key", async () => {
    await expect401(anonymousClient(), "GET", "/api/calls/rec-1/recording");
  });
});

describe("recording URLs expire (file store, a clock the test moves)", () => {
  const clock = new ManualClock(new Date());
  let system: RunningSystem;
  let t: Tenant;
  beforeAll(async () => {
    const env = testEnv({ RECORDING_URL_TTL_SECONDS: "60" });
    system = await startSystem({ env, inMemory: true, clock });
    t = await newTenant(system.url, new AdminClient(system.adminUrl, system.adminToken));
    await endCall(t.owner, "exp-1", {}, env.INTERNAL_API_KEY ?? "");
  });
  afterAll(async () => {
    await system?.stop();
  });

  it("answers until RECORDING_URL_TTL_SECONDS have passed, then 403; the next read signs anew", async () => {
    await upload(t.owner, "exp-1");
    const link = await recordingUrl(t.owner, "exp-1");
    expect(Date.parse(link.expires_at ?? "")).toBe(Math.floor(clock.now().getTime() / 1000) * 1000 + 60_000);
    expect((await download(link.url)).status).toBe(200);
    clock.advance(61_000);
    expect((await download(link.url)).status).toBe(403);
    const again = await recordingUrl(t.owner, "exp-1");
    expect(again.url).not.toBe(link.url);
    expect((await download(again.url)).bytes.equals(AUDIO)).toBe(true);
  });
});

describe("recordings in an S3-compatible store", () => {
  // Signed an hour ago: a URL of 15 minutes has expired for the S3 server, whose clock is real.
  const clock = new ManualClock(new Date());
  let s3: TestS3Server;
  let system: RunningSystem;
  let t: Tenant;
  beforeAll(async () => {
    s3 = await startTestS3Server();
    const env = testEnv(s3.env("voiceops"));
    system = await startSystem({ env, inMemory: true, clock });
    t = await newTenant(system.url, new AdminClient(system.adminUrl, system.adminToken));
    const key = env.INTERNAL_API_KEY ?? "";
    await endCall(t.owner, "s3-1", {}, key);
    await endCall(t.owner, "s3-2", {}, key);
  });
  afterAll(async () => {
    await system?.stop();
    await s3?.stop();
  });

  it("uploads into the bucket; a presigned URL downloads the same bytes; tampering is refused", async () => {
    const stored = await upload(t.owner, "s3-1", AUDIO, "audio/x-wav");
    const link = await recordingUrl(t.owner, "s3-1");
    expect(link.url.startsWith(`${s3.endpoint}/${s3.bucket}/voiceops/${stored.recording}?`)).toBe(true);
    expect(link.url).toContain("X-Amz-Signature=");
    expect(link.content_type).toBe("audio/x-wav");
    const got = await download(link.url);
    expect(got.status).toBe(200);
    expect(got.bytes.equals(AUDIO)).toBe(true);

    const tampered = new URL(link.url);
    const signature = tampered.searchParams.get("X-Amz-Signature") ?? "";
    tampered.searchParams.set("X-Amz-Signature", `${signature.slice(0, -1)}${signature.endsWith("0") ? "1" : "0"}`);
    expect((await download(tampered)).status).toBe(403);
    const longer = new URL(link.url);
    longer.searchParams.set("X-Amz-Expires", "604800");
    expect((await download(longer)).status).toBe(403);
  });

  it("an expired presigned URL is refused", async () => {
    await upload(t.owner, "s3-2");
    clock.set(new Date(Date.now() - 3_600_000));
    const link = await recordingUrl(t.owner, "s3-2");
    clock.set(new Date());
    expect(Date.parse(link.expires_at ?? "")).toBeLessThan(Date.now());
    expect((await download(link.url)).status).toBe(403);
    expect((await download((await recordingUrl(t.owner, "s3-2")).url)).status).toBe(200);
  });

  it("deleting the call deletes the object from the bucket", async () => {
    const link = await recordingUrl(t.owner, "s3-1");
    expect(expectStatus(await t.owner.delete("/api/calls/s3-1"), 200).deleted_activities).toBe(1);
    expect((await download(link.url)).status).toBe(404);
  });
});
