import { create } from "@bufbuild/protobuf";
import { newEvent, type DomainEvent } from "@voiceops/platform";
import {
  OnCallScheduleCancelledSchema,
  OnCallScheduleCreatedSchema,
  OnCallScheduleUpdatedSchema,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_events_pb";
import { toOnCallSchedule, type ScheduleRow } from "../store/schedules.js";

/** The event of a schedule's change, published as fieldops.on_call_schedule.<verb>. */
export function scheduleEvent(orgId: string, verb: "created" | "updated" | "cancelled", row: ScheduleRow): DomainEvent {
  const schedule = toOnCallSchedule(row);
  const type = `fieldops.on_call_schedule.${verb}`;
  if (verb === "created")
    return newEvent(orgId, type, OnCallScheduleCreatedSchema, create(OnCallScheduleCreatedSchema, { schedule }));
  if (verb === "updated")
    return newEvent(orgId, type, OnCallScheduleUpdatedSchema, create(OnCallScheduleUpdatedSchema, { schedule }));
  return newEvent(orgId, type, OnCallScheduleCancelledSchema, create(OnCallScheduleCancelledSchema, { schedule }));
}
