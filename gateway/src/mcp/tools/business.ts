import { DateTime } from "luxon";
import {
  endOfLocalDay,
  isOpenAt,
  localDate,
  openingIntervalsOn,
  shiftDate,
  WEEKDAYS,
  type WeeklyHours,
} from "@voiceops/platform";
import {
  KnowledgeService,
  SearchKnowledgeBaseRequestSchema,
  SearchKnowledgeBaseResponseSchema,
} from "@voiceops/proto/voiceops/comms/v1/knowledge_service_pb";
import { BusinessHoursSchema } from "@voiceops/proto/voiceops/mcp/v1/agent_tools_pb";
import { param } from "../schemas.js";
import { defineTool } from "../tool.js";

export const searchKnowledgeBase = defineTool({
  name: "search_knowledge_base",
  title: "Search the knowledge base",
  description:
    "Searches the business's own documents (services, prices, policies, service area, FAQ) for the caller's question, best passages first. Answer from the content found; when nothing relevant comes back, say so rather than guess.",
  kind: "read",
  params: [
    param(SearchKnowledgeBaseRequestSchema, "query"),
    param(SearchKnowledgeBaseRequestSchema, "top_k", {
      as: "limit",
      description: "How many passages to return (default 5).",
    }),
  ],
  output: SearchKnowledgeBaseResponseSchema,
  run: (ctx, args) => {
    const { query, topK } = args.of(SearchKnowledgeBaseRequestSchema);
    return ctx.call(KnowledgeService.method.searchKnowledgeBase, {
      query: query as string,
      topK: topK as number | undefined,
    });
  },
});

const WEEK_DAYS = 8;

/** The next opening or closing after `now` within a week (touching intervals are one), or undefined. */
function nextChange(hours: WeeklyHours, zone: string, now: Date): number | undefined {
  const today = localDate(now, zone);
  const intervals = Array.from({ length: WEEK_DAYS }, (_, day) =>
    openingIntervalsOn(hours, zone, shiftDate(today, day)),
  ).flat();
  const merged: { start: number; end: number }[] = [];
  for (const interval of intervals.sort((a, b) => a.start - b.start)) {
    const last = merged[merged.length - 1];
    if (last && interval.start <= last.end) last.end = Math.max(last.end, interval.end);
    else merged.push({ ...interval });
  }
  const at = now.getTime();
  // Open up to the last day looked at: no closing within the week.
  const horizon = endOfLocalDay(zone, WEEK_DAYS - 1, now).getTime();
  const current = merged.find((i) => i.start <= at && at < i.end);
  if (current) return current.end < horizon ? current.end : undefined;
  return merged.find((i) => i.start > at)?.start;
}

export const getBusinessHours = defineTool({
  name: "get_business_hours",
  title: "Business hours",
  description:
    "Tells whether the business is open right now (open_now), the local time, when it next opens or closes, and its opening hours per weekday in its time zone. Use it before promising a callback or a same-day visit.",
  kind: "read",
  params: [],
  output: BusinessHoursSchema,
  async run(ctx) {
    const { timezone, businessHours } = ctx.principal;
    const now = ctx.deps.clock.now();
    const change = nextChange(businessHours, timezone, now);
    const iso = (ms: number) =>
      DateTime.fromMillis(ms, { zone: timezone }).startOf("second").toISO({ suppressMilliseconds: true }) ?? "";
    return {
      timezone,
      localTime: iso(now.getTime()),
      openNow: isOpenAt({ timezone, hours: businessHours }, now),
      nextChangeAt: change === undefined ? undefined : iso(change),
      hours: Object.fromEntries(
        WEEKDAYS.map((day) => [day, (businessHours[day] ?? []).map((i) => ({ start: i.start, end: i.end }))]),
      ),
    };
  },
});
