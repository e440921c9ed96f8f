import { create, type JsonObject } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  blankToNull,
  enumToJson,
  invalidArgument,
  newEvent,
  orgOf,
  type ServiceContext,
  notFound,
  withDefaults,
  invalidValue,
  enumFilter,
  pageAnswer,
  pageRequest,
} from "@voiceops/platform";
import {
  ActivityCreatedSchema,
  CallEndedSchema,
  LookupsRecordedSchema,
} from "@voiceops/proto/voiceops/comms/v1/comms_events_pb";
import {
  ListActivitiesRequestSchema,
  ActivityTypeSchema,
  type CommsService,
  type CreateActivityRequest,
  type GetActivityRequest,
  type ListActivitiesRequest,
  type RecordLookupsRequest,
} from "@voiceops/proto/voiceops/comms/v1/comms_service_pb";
import type { CommsSettings } from "../settings.js";
import { toActivity } from "../store/activity-rows.js";
import { toCall } from "../store/call-rows.js";
import type { ActivityStore } from "../store/activities.js";
import type { ContactCopies } from "../store/contacts.js";
import {
  callChannel,
  callDuration,
  callMetadataViolations,
  customerPhone,
  hasTranscription,
} from "../activities/metadata.js";
import { activitySource } from "../activities/source.js";
import { hoursBefore } from "../activities/since.js";
import type { ReferenceChecker } from "../peers.js";

/** How far ahead of now the voice runtime's clock may be when it dates an activity. */
const CLOCK_SKEW_MS = 5 * 60_000;

export function activityHandlers(
  service: ServiceContext,
  deps: {
    settings: CommsSettings;
    activities: ActivityStore;
    contacts: ContactCopies;
    checkReferences: ReferenceChecker;
  },
) {
  const { db } = service;
  const { activities, contacts, settings, checkReferences } = deps;
  return {
    async listActivities(req: ListActivitiesRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const paging = pageRequest(ListActivitiesRequestSchema, req);
      const { lookups } = withDefaults(ListActivitiesRequestSchema, req, "lookups");
      const listing = await activities.list(db, org.orgId, {
        ...paging,
        activityType: enumFilter(ActivityTypeSchema, req.activityType),
        contactId: req.contactId?.toLowerCase(),
        serviceRequestId: req.serviceRequestId?.toLowerCase(),
        since: hoursBefore(service.clock.now(), req.hoursBack),
        lookups,
      });
      return pageAnswer(paging, listing, toActivity);
    },

    async createActivity(req: CreateActivityRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const source = activitySource(settings, req.internalKey);
      const now = service.clock.now();
      const type = enumToJson(ActivityTypeSchema, req.activityType) ?? "";
      const metadata: JsonObject = req.metadata ?? {};
      const violations = type === "CALL_ENDED" ? callMetadataViolations(metadata) : [];
      let occurredAt = now;
      if (source === "internal" && req.occurredAt) {
        occurredAt = timestampDate(req.occurredAt);
        if (occurredAt.getTime() > now.getTime() + CLOCK_SKEW_MS) {
          violations.push(
            invalidValue("occurred_at", "occurred_at must not be in the future", occurredAt.toISOString()),
          );
        }
      }
      const contactId = req.contactId?.toLowerCase() ?? null;
      const serviceRequestId = req.serviceRequestId?.toLowerCase() ?? null;
      const references = await checkReferences(org, { contactId, serviceRequestId });
      violations.push(...references.violations);
      if (violations.length > 0) throw invalidArgument(violations);
      const sessionId = blankToNull(req.sessionId);
      const row = await service.write(ctx, async (tx, emit) => {
        const inserted = await activities.insert(tx, org.orgId, {
          activityType: type,
          description: blankToNull(req.description),
          contactId,
          serviceRequestId,
          sessionId,
          metadata,
          source,
          occurredAt,
          createdAt: now,
          customerPhone: customerPhone(type, metadata, references.contact?.phoneNumber ?? null, org.country),
        });
        if (type === "CALL_ENDED" && sessionId) {
          const channel = callChannel(metadata);
          await activities.setCall(tx, {
            orgId: org.orgId,
            sessionId,
            activityId: inserted.id,
            channel,
            occurredAt,
            durationSeconds: callDuration(metadata),
            hasTranscription: hasTranscription(metadata),
          });
          const call = toCall({
            ...inserted,
            call_session_id: sessionId,
            call_channel: channel,
            contact_known: references.contact !== undefined,
            contact_name: references.contact?.name ?? null,
          });
          emit(newEvent(org.orgId, "comms.call.ended", CallEndedSchema, create(CallEndedSchema, { call })));
        }
        if (references.contact) await contacts.save(tx, org.orgId, references.contact);
        emit(
          newEvent(
            org.orgId,
            "comms.activity.created",
            ActivityCreatedSchema,
            create(ActivityCreatedSchema, { activity: toActivity(inserted) }),
          ),
        );
        return inserted;
      });
      return { activity: toActivity(row) };
    },

    async recordLookups(req: RecordLookupsRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      if (req.lookups.length === 0) return { recorded: 0 };
      const now = service.clock.now();
      const lookups = req.lookups.map((lookup) => ({
        tool: lookup.tool,
        occurredAt: lookup.occurredAt ? timestampDate(lookup.occurredAt) : now,
      }));
      const rows = await service.write(ctx, async (tx, emit) => {
        const inserted = await activities.insertLookups(tx, org.orgId, lookups, now);
        emit(
          newEvent(
            org.orgId,
            "comms.lookups.recorded",
            LookupsRecordedSchema,
            create(LookupsRecordedSchema, {
              lookups: inserted.map(({ id, tool, occurredAt }) => ({
                activityId: id,
                tool,
                occurredAt: timestampFromDate(occurredAt),
              })),
            }),
          ),
        );
        return inserted;
      });
      return { recorded: rows.length };
    },

    async getActivity(req: GetActivityRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const row = await activities.get(db, org.orgId, req.activityId.toLowerCase());
      if (!row) throw notFound("Activity");
      return { activity: toActivity(row) };
    },
  } satisfies Partial<ServiceImpl<typeof CommsService>>;
}
