import { randomUUID } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database, ReceivedEvent } from "@voiceops/platform";
import { serviceDatabase } from "@voiceops/platform/testing";
import { ActivityCreatedSchema, LookupsRecordedSchema } from "@voiceops/proto/voiceops/comms/v1/comms_events_pb";
import { ActivitySchema, ActivityType } from "@voiceops/proto/voiceops/comms/v1/comms_service_pb";
import { commsConsumer } from "../src/consumers/comms.js";
import { analyticsService } from "../src/index.js";
import { addAllToBuckets, addToBuckets, type BucketAddition } from "../src/store/buckets.js";

// Applying a run of events (or of bucket additions) at once must leave exactly the figures that
// applying them one after another leaves: compared in two organizations of the run's database.
describe("activities applied in runs", () => {
  let db: Database;

  beforeAll(async () => {
    db = await serviceDatabase(analyticsService, "activity-batches-test");
  });
  afterAll(async () => {
    await db?.close();
  });

  /** Every bucket and day sum of an organization, in key order. */
  const figures = async (orgId: string) => {
    const buckets = await db.query<{ metric: string; bucket: Date; value: string }>(
      `SELECT metric, bucket, value FROM analytics.buckets WHERE org_id = $1 AND value <> 0 ORDER BY metric, bucket`,
      [orgId],
    );
    const days = await db.query<{ metric: string; day: string; value: string }>(
      `SELECT metric, to_char(day, 'YYYY-MM-DD') AS day, value FROM analytics.daily WHERE org_id = $1 AND value <> 0 ORDER BY metric, day`,
      [orgId],
    );
    return {
      buckets: buckets.rows.map((r) => `${r.metric} ${r.bucket.toISOString()} ${r.value}`),
      days: days.rows.map((r) => `${r.metric} ${r.day} ${r.value}`),
    };
  };

  it("adds many additions in two statements as addToBuckets on each in turn", async () => {
    const at = (iso: string) => new Date(iso);
    const additions: BucketAddition[] = [
      { at: at("2026-11-02T10:01:00Z"), values: { a: 1, b: 2 } },
      { at: at("2026-11-02T10:14:59Z"), values: { a: 1 } },
      { at: at("2026-11-02T10:15:00Z"), values: { a: -1, c: 0 } },
      { at: at("2026-11-02T23:59:00Z"), values: () => ({ b: 5 }) },
      { at: at("2026-11-03T00:00:00Z"), values: (settings) => ({ [`zone ${settings.timezone}`]: 1 }) },
      { at: at("2026-11-03T00:05:00Z"), values: { b: 1, d: 1 } },
      { at: at("2026-11-03T00:06:00Z"), values: { d: -1 } },
    ];
    const [one, all] = [randomUUID(), randomUUID()];
    for (const { at: when, values } of additions) await db.transaction((tx) => addToBuckets(tx, one, when, values));
    await db.transaction((tx) => addAllToBuckets(tx, all, additions));
    const expected = await figures(one);
    expect(expected.buckets).toContain("a 2026-11-02T10:00:00.000Z 2");
    expect(expected.days).toContain("b 2026-11-02 7");
    expect(await figures(all)).toEqual(expected);
  });

  it("counts each quarter hour on the local day it starts on, as a re-sum of the days does", async () => {
    const orgId = randomUUID();
    await db.query(
      `INSERT INTO analytics.org_settings (org_id, timezone, business_hours) VALUES ($1, 'America/Chicago', '{}')`,
      [orgId],
    );
    // Chicago's midnight of 2026-11-03 is 06:00Z: two additions before it, three after, two of
    // them in one quarter hour.
    const additions: BucketAddition[] = ["05:50", "05:59", "06:00", "06:14", "06:15"].map((time) => ({
      at: new Date(`2026-11-03T${time}:00Z`),
      values: { a: 1 },
    }));
    await db.transaction((tx) => addAllToBuckets(tx, orgId, additions));
    const { days } = await figures(orgId);
    expect(days).toEqual(["a 2026-11-02 2", "a 2026-11-03 3"]);
    const resummed = await db.query<{ day: string; value: string }>(
      `SELECT to_char((bucket AT TIME ZONE 'America/Chicago')::date, 'YYYY-MM-DD') AS day, sum(value) AS value
       FROM analytics.buckets WHERE org_id = $1 GROUP BY 1 ORDER BY 1`,
      [orgId],
    );
    expect(resummed.rows.map((r) => `a ${r.day} ${r.value}`)).toEqual(days);
  });

  const activityEvent = (
    orgId: string,
    id: string,
    type: ActivityType,
    occurredAt: Date,
  ): ReceivedEvent<typeof ActivityCreatedSchema> => ({
    id: randomUUID(),
    orgId,
    type: "comms.activity.created",
    traceparent: "",
    occurredAt,
    payload: create(ActivityCreatedSchema, {
      activity: create(ActivitySchema, { id, activityType: type, occurredAt: timestampFromDate(occurredAt) }),
    }),
  });

  it("a run of created activities counts each activity once, as the events one by one do", async () => {
    const handler = commsConsumer.handlers["comms.activity.created"];
    const handleAll = handler?.handleAll?.bind(handler);
    if (!handler || !handleAll) throw new Error("comms.activity.created has no handler of runs");
    const [one, all] = [randomUUID(), randomUUID()];
    const ids = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const script = (orgId: string) => [
      activityEvent(orgId, ids[0] ?? "", ActivityType.LOOKUP, new Date("2026-11-02T10:01:00Z")),
      activityEvent(orgId, ids[1] ?? "", ActivityType.CALL_ENDED, new Date("2026-11-02T03:00:00Z")),
      activityEvent(orgId, ids[2] ?? "", ActivityType.LOOKUP, new Date("2026-11-02T10:02:00Z")),
      // The same activity again (a second event for it): counted once.
      activityEvent(orgId, ids[0] ?? "", ActivityType.LOOKUP, new Date("2026-11-02T10:01:00Z")),
      activityEvent(orgId, ids[3] ?? "", ActivityType.CALL_ENDED, new Date("2026-11-02T12:00:00Z")),
    ];
    const emit = () => undefined;
    for (const event of script(one)) await db.transaction((tx) => handler.handle(event, tx, emit));
    await db.transaction((tx) => handleAll(script(all), tx, emit));
    const expected = await figures(one);
    expect(expected.days).toContain("activity:LOOKUP 2026-11-02 2");
    expect(expected.days).toContain("activity:CALL_ENDED 2026-11-02 2");
    expect(expected.days).toContain("calls_after_hours 2026-11-02 1");
    expect(await figures(all)).toEqual(expected);
    // Seen before: the same run again adds nothing.
    await db.transaction((tx) => handleAll(script(all), tx, emit));
    expect(await figures(all)).toEqual(expected);
  });

  it("batches of recorded lookups count each lookup as a LOOKUP activity created alone does", async () => {
    const created = commsConsumer.handlers["comms.activity.created"];
    const recorded = commsConsumer.handlers["comms.lookups.recorded"];
    const handleAll = recorded?.handleAll?.bind(recorded);
    if (!created || !recorded || !handleAll) throw new Error("comms.lookups.recorded has no handler of runs");
    const [one, single, all] = [randomUUID(), randomUUID(), randomUUID()];
    for (const orgId of [one, single, all])
      await db.query(
        `INSERT INTO analytics.org_settings (org_id, timezone, business_hours) VALUES ($1, 'America/Chicago', '{}')`,
        [orgId],
      );
    // Around Chicago's midnight of 2026-11-03 (06:00Z) and a quarter hour's edges; one lookup
    // without a time of its own (the event's).
    const times = ["05:44:59", "05:45:00", "05:59:59.999", "06:00:00", "06:00:00", "06:14:59", "06:15:00"].map(
      (time) => new Date(`2026-11-03T${time}Z`),
    );
    const eventAt = new Date("2026-11-03T06:20:00Z");
    const emit = () => undefined;
    for (const at of [...times, eventAt])
      await db.transaction((tx) => created.handle(activityEvent(one, randomUUID(), ActivityType.LOOKUP, at), tx, emit));
    const batch = (orgId: string, lookups: (Date | undefined)[]): ReceivedEvent<typeof LookupsRecordedSchema> => ({
      id: randomUUID(),
      orgId,
      traceparent: "",
      type: "comms.lookups.recorded",
      occurredAt: eventAt,
      payload: create(LookupsRecordedSchema, {
        lookups: lookups.map((at) => ({
          activityId: randomUUID(),
          tool: "search_contacts",
          occurredAt: at ? timestampFromDate(at) : undefined,
        })),
      }),
    });
    await db.transaction((tx) => recorded.handle(batch(single, [...times, undefined]), tx, emit));
    // Two batches in one run, the lookups split between them.
    await db.transaction((tx) =>
      handleAll([batch(all, times.slice(0, 3)), batch(all, [...times.slice(3), undefined])], tx, emit),
    );
    const expected = await figures(one);
    expect(expected.days).toEqual(
      expect.arrayContaining(["activity:LOOKUP 2026-11-02 3", "activity:LOOKUP 2026-11-03 5"]),
    );
    expect(await figures(single)).toEqual(expected);
    expect(await figures(all)).toEqual(expected);
  });
});
