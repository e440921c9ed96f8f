import { timestampDate, timestampMs } from "@bufbuild/protobuf/wkt";
import {
  enumToJson,
  handlerOf,
  isOpenAt,
  type Queryable,
  type ReceivedEvent,
  type StreamConsumer,
} from "@voiceops/platform";
import {
  ActivityCreatedSchema,
  CallDeletedSchema,
  LookupsRecordedSchema,
} from "@voiceops/proto/voiceops/comms/v1/comms_events_pb";
import { ActivityTypeSchema } from "@voiceops/proto/voiceops/comms/v1/comms_service_pb";
import {
  OutboundCallFinishedSchema,
  OutboundCallRequestedSchema,
} from "@voiceops/proto/voiceops/comms/v1/outbound_events_pb";
import type { CallRequest } from "@voiceops/proto/voiceops/comms/v1/outbound_service_pb";
import { addAllToBuckets, addToBuckets, type BucketAddition, quarterOf } from "../store/buckets.js";
import { Metric } from "../model/names.js";
import type { OrgSettings } from "../store/org-settings.js";
import { applyRecord, applyRecords } from "../store/records.js";
import { setUpcoming } from "../store/upcoming.js";

/**
 * What `count` activities of one type in the quarter hour of `at` add to the buckets (-1 takes
 * one back out).
 */
function activityValues(type: string, at: Date, count: number) {
  return (settings: OrgSettings) => {
    const values: Record<string, number> = { [Metric.activities]: count, [Metric.activity(type)]: count };
    // Judged per quarter hour, as the re-sum after a change of opening hours judges it.
    if (type === "CALL_ENDED" && !isOpenAt(settings, quarterOf(at))) values[Metric.callsAfterHours] = count;
    return values;
  };
}

/** Takes a deleted activity back out of the figures, once. */
async function removeActivity(tx: Queryable, orgId: string, activityId: string): Promise<void> {
  const previous = await applyRecord(tx, orgId, "activity", activityId.toLowerCase(), null);
  const type = previous?.attrs.type;
  const at = previous?.attrs.at;
  if (typeof type !== "string" || typeof at !== "string") return;
  const when = new Date(at);
  await addToBuckets(tx, orgId, when, activityValues(type, when, -1));
}

/**
 * An outbound call (a campaign's, or a quick or entity call) is upcoming from the moment it is
 * handed to the voice runtime until its result is known.
 */
async function applyCallRequest(tx: Queryable, orgId: string, call: CallRequest, finished: boolean): Promise<void> {
  const at = call.scheduledFor ? timestampDate(call.scheduledFor) : undefined;
  const entry = !finished && at ? { at, title: `Call ${call.phoneNumber}`, contactId: call.contactId ?? null } : null;
  await setUpcoming(tx, orgId, "campaign_call", call.id, entry);
}

/**
 * Adds created activities to the figures, each once: the record remembers what to take back out
 * when the activity is deleted, and one seen before (a redelivery) or already deleted adds
 * nothing. A run of events takes one statement for the records and four per organization for
 * the sums (addAllToBuckets), instead of five statements per activity.
 */
async function addActivities(events: ReceivedEvent<typeof ActivityCreatedSchema>[], tx: Queryable): Promise<void> {
  const created = events.flatMap((event) => {
    const activity = event.payload.activity;
    const type = activity ? enumToJson(ActivityTypeSchema, activity.activityType) : null;
    if (!activity || !type) return [];
    const at = activity.occurredAt ? timestampDate(activity.occurredAt) : event.occurredAt;
    return [{ orgId: event.orgId, id: activity.id.toLowerCase(), type, at }];
  });
  const previous = await applyRecords(
    tx,
    created.map(({ orgId, id, type, at }) => ({
      orgId,
      kind: "activity",
      id,
      next: { counters: [], attrs: { type, at: at.toISOString() } },
    })),
  );
  await addPerOrganization(
    tx,
    created.filter((_, i) => previous[i] === null),
  );
}

/** Adds activities to the sums, four statements per organization (organizations in id order). */
async function addPerOrganization(tx: Queryable, activities: { orgId: string; type: string; at: Date }[]) {
  const additions = new Map<string, BucketAddition[]>();
  for (const { orgId, type, at } of activities) {
    const list = additions.get(orgId) ?? [];
    list.push({ at, values: activityValues(type, at, 1) });
    additions.set(orgId, list);
  }
  await addAllPerOrganization(tx, additions);
}

/** Adds each organization's additions, organizations in id order (the order their settings are locked in). */
async function addAllPerOrganization(tx: Queryable, additions: Map<string, BucketAddition[]>): Promise<void> {
  for (const orgId of [...additions.keys()].sort()) await addAllToBuckets(tx, orgId, additions.get(orgId) ?? []);
}

/**
 * Adds batches of agent tool lookups (LOOKUP activities) to the sums. They are counted once by
 * their event (the platform applies an event once), so they keep no record: a LOOKUP is never
 * deleted. A batch holds up to hundreds of calls of a few quarter hours: each quarter hour's
 * lookups are one addition of their count (the sums an addition per lookup would leave).
 */
function addLookups(events: ReceivedEvent<typeof LookupsRecordedSchema>[], tx: Queryable): Promise<void> {
  const counts = new Map<string, Map<number, number>>();
  for (const event of events) {
    let quarters = counts.get(event.orgId);
    if (!quarters) {
      quarters = new Map();
      counts.set(event.orgId, quarters);
    }
    for (const lookup of event.payload.lookups) {
      const at = lookup.occurredAt ? timestampMs(lookup.occurredAt) : event.occurredAt.getTime();
      const quarter = quarterOf(new Date(at)).getTime();
      quarters.set(quarter, (quarters.get(quarter) ?? 0) + 1);
    }
  }
  const additions = new Map<string, BucketAddition[]>();
  for (const [orgId, quarters] of counts)
    additions.set(
      orgId,
      [...quarters].map(([quarter, count]) => {
        const at = new Date(quarter);
        return { at, values: activityValues("LOOKUP", at, count) };
      }),
    );
  return addAllPerOrganization(tx, additions);
}

/** Activities (calls, messages, notes...) and outbound campaign calls, as comms published them. */
export const commsConsumer: StreamConsumer = {
  durable: "analytics-comms",
  subject: "comms.>",
  handlers: {
    "comms.activity.created": handlerOf(
      ActivityCreatedSchema,
      (event, tx) => addActivities([event], tx),
      (events, tx) => addActivities(events, tx),
    ),
    "comms.lookups.recorded": handlerOf(
      LookupsRecordedSchema,
      (event, tx) => addLookups([event], tx),
      (events, tx) => addLookups(events, tx),
    ),
    "comms.call.deleted": handlerOf(CallDeletedSchema, async (event, tx) => {
      for (const id of event.payload.activityIds) await removeActivity(tx, event.orgId, id);
    }),
    "comms.outbound_call.requested": handlerOf(OutboundCallRequestedSchema, async (event, tx) => {
      if (event.payload.callRequest) await applyCallRequest(tx, event.orgId, event.payload.callRequest, false);
    }),
    "comms.outbound_call.finished": handlerOf(OutboundCallFinishedSchema, async (event, tx) => {
      if (event.payload.callRequest) await applyCallRequest(tx, event.orgId, event.payload.callRequest, true);
    }),
  },
};
