import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { enumJsonValues, localDate, orgOf, type ServiceContext, shiftDate, withDefaults } from "@voiceops/platform";
import {
  GetUpcomingRequestSchema,
  GetTimeSeriesRequestSchema,
  GetActivitiesByTypeRequestSchema,
  GetRoiRequestSchema,
  AppointmentCountsSchema,
  type AnalyticsService,
  type GetActivitiesByTypeRequest,
  type GetRoiRequest,
  type GetTimeSeriesRequest,
  type GetUpcomingRequest,
  TimeSeriesPointSchema,
  UpcomingItemSchema,
} from "@voiceops/proto/voiceops/analytics/v1/analytics_service_pb";
import {
  ServiceRequestPrioritySchema,
  ServiceRequestStatusSchema,
} from "@voiceops/proto/voiceops/jobs/v1/jobs_service_pb";
import { ACTIVITY_TYPES, MESSAGE_TYPES, SMS_TYPES } from "../model/activity-types.js";
import { addSums, sumDaysPerMetric, sumPerDay, sumQuartersPerMetric } from "../store/buckets.js";
import { lastLocalDates, startOfLocalDate } from "../model/local-days.js";
import { Counter, Metric } from "../model/names.js";
import { SettingsKeeper } from "../store/org-settings.js";
import { readCounters } from "../store/records.js";
import { contactsWithPortalTokens, techniciansOnCall, upcomingCount, upcomingPage } from "../store/statistics.js";

const APPOINTMENT_STATUSES = ["scheduled", "confirmed", "completed", "cancelled", "no_show"] as const;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** Bucket metrics of each time series. */
const SERIES_METRICS: Record<string, string[]> = {
  service_requests: [Metric.requestsCreated],
  activities: [Metric.activities],
  calls: [Metric.activity("CALL_ENDED")],
  sms_messages: SMS_TYPES.map(Metric.activity),
};

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

export function statisticsHandlers(service: ServiceContext) {
  const { db, clock } = service;
  const settings = new SettingsKeeper(db);

  /** The caller's organization, its day sums settled in its zone and opening hours. */
  async function settledOrg(ctx: HandlerContext) {
    const org = orgOf(ctx);
    await settings.settle(org.orgId, { timezone: org.timezone, hours: org.businessHours });
    return org;
  }

  /** Sums of the metrics over each of the last `days` local days, oldest first, today last. */
  async function lastDays(
    orgId: string,
    timezone: string,
    metrics: string[],
    days: number,
  ): Promise<{ dates: string[]; values: number[] }> {
    const dates = lastLocalDates(timezone, days, clock.now());
    const sums = await sumPerDay(db, orgId, metrics, dates[0] ?? "", dates[dates.length - 1] ?? "");
    return { dates, values: dates.map((date) => sums.get(date) ?? 0) };
  }

  /** Counts per enum value, every value present. */
  async function countsOf(orgId: string, values: string[], counter: (value: string) => string) {
    const counters = await readCounters(db, orgId, values.map(counter));
    const counts: Record<string, bigint> = {};
    for (const value of values) counts[value] = BigInt(counters.get(counter(value)) ?? 0);
    return { counts, total: BigInt(sum([...counters.values()])) };
  }

  return {
    async getDashboard(_req: unknown, ctx: HandlerContext) {
      const org = await settledOrg(ctx);
      const now = clock.now();
      const [counters, calls, messages, appointments, onCall] = await Promise.all([
        readCounters(db, org.orgId, [
          Counter.contacts,
          Counter.customers,
          Counter.leadsOpen,
          Counter.requestsOpen,
          Counter.emergenciesActive,
          Counter.quotesPending,
          Counter.dispatchesActive,
        ]),
        lastDays(org.orgId, org.timezone, [Metric.activity("CALL_ENDED")], 7),
        lastDays(org.orgId, org.timezone, MESSAGE_TYPES.map(Metric.activity), 7),
        upcomingCount(db, org.orgId, "appointment", now, null),
        techniciansOnCall(db, org.orgId, now),
      ]);
      const count = (name: string) => BigInt(counters.get(name) ?? 0);
      return {
        contactsTotal: count(Counter.contacts),
        customersTotal: count(Counter.customers),
        leadsOpen: count(Counter.leadsOpen),
        serviceRequestsOpen: count(Counter.requestsOpen),
        emergenciesActive: count(Counter.emergenciesActive),
        quotesPending: count(Counter.quotesPending),
        callsToday: BigInt(calls.values[6] ?? 0),
        callsLast7Days: BigInt(sum(calls.values)),
        messagesLast7Days: BigInt(sum(messages.values)),
        appointmentsUpcoming: BigInt(appointments),
        techniciansOnCall: BigInt(onCall),
        dispatchesActive: count(Counter.dispatchesActive),
        generatedAt: timestampFromDate(now),
      };
    },

    async getRoi(req: GetRoiRequest, ctx: HandlerContext) {
      const org = await settledOrg(ctx);
      const { days } = withDefaults(GetRoiRequestSchema, req, "days");
      const dates = lastLocalDates(org.timezone, days, clock.now());
      const calls = Metric.activity("CALL_ENDED");
      const metrics = [
        calls,
        Metric.callsAfterHours,
        Metric.leadsCreated,
        Metric.leadValueCents,
        Metric.requestsCreated,
        Metric.quoteValueCents,
        Metric.appointmentsBooked,
      ];
      const sums = await sumDaysPerMetric(db, org.orgId, metrics, dates[0] ?? "", dates[dates.length - 1] ?? "");
      const value = (metric: string) => BigInt(sums.get(metric) ?? 0);
      return {
        days,
        callsAnswered: value(calls),
        afterHoursCallsAnswered: value(Metric.callsAfterHours),
        leadsCreated: value(Metric.leadsCreated),
        appointmentsBooked: value(Metric.appointmentsBooked),
        serviceRequestsCreated: value(Metric.requestsCreated),
        estimatedValueCents: value(Metric.leadValueCents) + value(Metric.quoteValueCents),
      };
    },

    async getServiceRequestsByStatus(_req: unknown, ctx: HandlerContext) {
      return countsOf(orgOf(ctx).orgId, enumJsonValues(ServiceRequestStatusSchema), Counter.requestStatus);
    },

    async getServiceRequestsByPriority(_req: unknown, ctx: HandlerContext) {
      return countsOf(orgOf(ctx).orgId, enumJsonValues(ServiceRequestPrioritySchema), Counter.requestPriority);
    },

    async getActivitiesByType(req: GetActivitiesByTypeRequest, ctx: HandlerContext) {
      const org = await settledOrg(ctx);
      const { hoursBack } = withDefaults(GetActivitiesByTypeRequestSchema, req, "hoursBack");
      const now = clock.now();
      const from = new Date(now.getTime() - hoursBack * HOUR_MS);
      const metrics = ACTIVITY_TYPES.map(Metric.activity);
      // Whole local days inside the window from the day sums, its two ragged ends from the quarter hours.
      const fromDate = localDate(from, org.timezone);
      const firstWhole =
        startOfLocalDate(org.timezone, fromDate).getTime() === from.getTime() ? fromDate : shiftDate(fromDate, 1);
      const today = localDate(now, org.timezone);
      const end = new Date(now.getTime() + 1);
      const sums =
        firstWhole < today
          ? addSums(
              addSums(
                await sumQuartersPerMetric(db, org.orgId, metrics, from, startOfLocalDate(org.timezone, firstWhole)),
                await sumDaysPerMetric(db, org.orgId, metrics, firstWhole, shiftDate(today, -1)),
              ),
              await sumQuartersPerMetric(db, org.orgId, metrics, startOfLocalDate(org.timezone, today), end),
            )
          : await sumQuartersPerMetric(db, org.orgId, metrics, from, end);
      const counts: Record<string, bigint> = {};
      for (const type of ACTIVITY_TYPES) counts[type] = BigInt(sums.get(Metric.activity(type)) ?? 0);
      return { hoursBack, counts, total: BigInt(sum([...sums.values()])) };
    },

    async getTimeSeries(req: GetTimeSeriesRequest, ctx: HandlerContext) {
      const org = await settledOrg(ctx);
      const { days } = withDefaults(GetTimeSeriesRequestSchema, req, "days");
      const { dates, values } = await lastDays(org.orgId, org.timezone, SERIES_METRICS[req.metric] ?? [], days);
      return {
        metric: req.metric,
        days,
        timezone: org.timezone,
        points: dates.map((date, index) => create(TimeSeriesPointSchema, { date, value: BigInt(values[index] ?? 0) })),
      };
    },

    async getPortalSessions(_req: unknown, ctx: HandlerContext) {
      const org = orgOf(ctx);
      return { activePortalTokens: BigInt(await contactsWithPortalTokens(db, org.orgId, clock.now())) };
    },

    async getAppointmentStats(_req: unknown, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const now = clock.now();
      const [{ counts, total }, upcoming] = await Promise.all([
        countsOf(org.orgId, [...APPOINTMENT_STATUSES], Counter.appointmentStatus),
        upcomingCount(db, org.orgId, "appointment", now, new Date(now.getTime() + 7 * DAY_MS)),
      ]);
      return {
        counts: create(AppointmentCountsSchema, {
          scheduled: counts.scheduled,
          confirmed: counts.confirmed,
          completed: counts.completed,
          cancelled: counts.cancelled,
          noShow: counts.no_show,
        }),
        upcoming7Days: BigInt(upcoming),
        total,
      };
    },

    async getUpcoming(req: GetUpcomingRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const now = clock.now();
      const { days, limit } = withDefaults(GetUpcomingRequestSchema, req, "days", "limit");
      const rows = await upcomingPage(db, org.orgId, now, new Date(now.getTime() + days * DAY_MS), limit);
      // No row on the page means none in the window: the page starts at the first.
      const total = rows[0]?.total ?? 0;
      return {
        items: rows.map((row) =>
          create(UpcomingItemSchema, {
            type: row.type,
            at: timestampFromDate(row.at),
            title: row.title,
            refId: row.ref_id,
            contactId: row.contact_id ?? undefined,
          }),
        ),
        total: BigInt(total),
      };
    },
  } satisfies ServiceImpl<typeof AnalyticsService>;
}
