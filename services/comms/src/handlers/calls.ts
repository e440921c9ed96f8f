import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import {
  invalidArgument,
  newEvent,
  orgOf,
  violation,
  type Emit,
  type ServiceContext,
  notFound,
  withDefaults,
  invalidValue,
  enumFilter,
  pageAnswer,
  pageRequest,
} from "@voiceops/platform";
import { CallDeletedSchema, RecordingStoredSchema } from "@voiceops/proto/voiceops/comms/v1/comms_events_pb";
import {
  DeleteCallsRequestSchema,
  ListCallsRequestSchema,
  CallChannelSchema,
  type CommsService,
  type DeleteCallRequest,
  type DeleteCallsRequest,
  type GetCallRecordingRequest,
  type GetCallRequest,
  type ListCallsRequest,
  type PutCallRecordingRequest,
} from "@voiceops/proto/voiceops/comms/v1/comms_service_pb";
import { toActivity } from "../store/activity-rows.js";
import { recordingOf, toCall, toCallDetail } from "../store/call-rows.js";
import type { CallStore, DeletedCalls } from "../store/calls.js";
import { hoursBefore } from "../activities/since.js";
import { isOwnObject, type Recordings } from "../calls/recordings.js";

function emitDeleted(orgId: string, removed: DeletedCalls, emit: Emit): void {
  for (const [sessionId, activityIds] of removed.sessions) {
    emit(
      newEvent(orgId, "comms.call.deleted", CallDeletedSchema, create(CallDeletedSchema, { sessionId, activityIds })),
    );
  }
}

export function callHandlers(service: ServiceContext, deps: { calls: CallStore; recordings: Recordings }) {
  const { db } = service;
  const { calls, recordings } = deps;
  return {
    async listCalls(req: ListCallsRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const paging = pageRequest(ListCallsRequestSchema, req);
      const listing = await calls.list(db, org.orgId, {
        ...paging,
        channel: enumFilter(CallChannelSchema, req.channel),
        since: hoursBefore(service.clock.now(), req.hoursBack),
      });
      return pageAnswer(paging, listing, toCall);
    },

    async getCall(req: GetCallRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      return db.transaction(async (tx) => {
        const row = await calls.get(tx, org.orgId, req.sessionId);
        if (!row) throw notFound("Call");
        const activities = await calls.sessionActivities(tx, org.orgId, req.sessionId);
        return { call: toCallDetail(row, activities.map(toActivity)) };
      });
    },

    async deleteCall(req: DeleteCallRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const removed = await service.write(ctx, async (tx, emit) => {
        const result = await calls.deleteSession(tx, org.orgId, req.sessionId);
        if (result.activities === 0) throw notFound("Call");
        emitDeleted(org.orgId, result, emit);
        return result;
      });
      await recordings.discard(org.orgId, removed.recordings);
      return { sessionId: req.sessionId, deletedActivities: removed.activities };
    },

    async deleteCalls(req: DeleteCallsRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const { noTranscription } = withDefaults(DeleteCallsRequestSchema, req, "noTranscription");
      if (!noTranscription && req.maxDuration === undefined && req.hoursBack === undefined) {
        throw invalidArgument([
          violation("", "required", "At least one filter is required: no_transcription, max_duration or hours_back"),
        ]);
      }
      const removed = await service.write(ctx, async (tx, emit) => {
        const result = await calls.deleteMatching(tx, org.orgId, {
          noTranscription,
          maxDuration: req.maxDuration,
          since: hoursBefore(service.clock.now(), req.hoursBack),
        });
        emitDeleted(org.orgId, result, emit);
        return result;
      });
      await recordings.discard(org.orgId, removed.recordings);
      return { deletedCalls: removed.sessions.size, deletedActivities: removed.activities };
    },

    async getCallRecording(req: GetCallRecordingRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const row = await calls.get(db, org.orgId, req.sessionId);
      if (!row) throw notFound("Call");
      const recording = recordingOf(row.metadata ?? {});
      if (!recording) throw new ConnectError("The call has no recording", Code.NotFound);
      const contentType =
        typeof row.metadata.recording_content_type === "string" ? row.metadata.recording_content_type : undefined;
      const link = await recordings.link(org.orgId, recording);
      if (!link) throw new ConnectError("The call's recording is neither a URL nor a stored recording", Code.NotFound);
      return { sessionId: req.sessionId, url: link.url, expiresAt: link.expiresAt, contentType };
    },

    async putCallRecording(req: PutCallRecordingRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const audio = req.audio;
      // The gateway stores uploads under the organization's prefix; a direct caller must too.
      if (!audio || !isOwnObject(org.orgId, audio.objectKey)) {
        throw invalidArgument([
          invalidValue("audio", "an uploaded audio file of the organization is required", audio?.objectKey ?? null),
        ]);
      }
      if (!audio.contentType.toLowerCase().startsWith("audio/")) {
        throw invalidArgument([invalidValue("audio.content_type", "the recording must be audio/*", audio.contentType)]);
      }
      const recording = {
        key: audio.objectKey,
        contentType: audio.contentType.toLowerCase(),
        bytes: Number(audio.bytes),
      };
      const previous = await service.write(ctx, async (tx, emit) => {
        const changed = await calls.setRecording(tx, org.orgId, req.sessionId, recording);
        if (!changed) throw notFound("Call");
        const call = await calls.get(tx, org.orgId, req.sessionId);
        emit(
          newEvent(
            org.orgId,
            "comms.call.recording_stored",
            RecordingStoredSchema,
            create(RecordingStoredSchema, {
              sessionId: req.sessionId,
              recording: recording.key,
              bytes: audio.bytes,
              contentType: recording.contentType,
              call: call ? toCall(call) : undefined,
            }),
          ),
        );
        return changed.previous;
      });
      if (previous && previous !== recording.key) await recordings.discard(org.orgId, [previous]);
      return {
        sessionId: req.sessionId,
        recording: recording.key,
        bytes: audio.bytes,
        contentType: recording.contentType,
      };
    },
  } satisfies Partial<ServiceImpl<typeof CommsService>>;
}
