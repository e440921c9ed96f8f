import { pageOffset, selectWindow, type Queryable } from "@voiceops/platform";
import { ACTIVITY_COLUMNS, type ActivityRow } from "./activity-rows.js";

interface MessageListQuery {
  channel: "sms" | "whatsapp" | "web";
  direction: "inbound" | "outbound" | undefined;
  /** Ways the customer may be written (E.164 and as given). */
  phones: string[] | undefined;
  since: Date | undefined;
  page: number;
  pageSize: number;
}

/** One listed message: an activity, and for web chat which half of the exchange. */
export interface MessageSlot {
  row: ActivityRow;
  direction: "inbound" | "outbound";
}

const TYPES: Record<MessageListQuery["channel"], { inbound: string; outbound: string }> = {
  sms: { inbound: "SMS_RECEIVED", outbound: "SMS_SENT" },
  whatsapp: { inbound: "WHATSAPP_RECEIVED", outbound: "WHATSAPP_SENT" },
  web: { inbound: "WEB_CHAT", outbound: "WEB_CHAT" },
};

export class MessageStore {
  /**
   * A page of messages, newest first. SMS and WhatsApp activities are one message each; a web
   * chat activity is two (its reply, then the visitor's message), unless a direction picks one.
   */
  async list(db: Queryable, orgId: string, query: MessageListQuery): Promise<{ rows: MessageSlot[]; total: number }> {
    const params: unknown[] = [orgId, query.channel];
    const where = ["org_id = $1", "message_channel = $2"];
    const web = query.channel === "web";
    if (query.direction && !web) {
      params.push(query.direction);
      where.push(`message_direction = $${params.length}`);
    }
    const counted = !query.phones && !query.since;
    if (query.phones) {
      params.push(query.phones);
      where.push(`customer_phone = ANY($${params.length}::text[])`);
    }
    if (query.since) {
      params.push(query.since);
      where.push(`occurred_at >= $${params.length}`);
    }
    const split = web && !query.direction;
    const perActivity = split ? 2 : 1;
    let total = `SELECT count(*)::int AS total FROM comms.activities WHERE ${where.join(" AND ")}`;
    if (counted) {
      // Without a phone or time filter the total is read from the per-type counts.
      const types = query.direction
        ? [TYPES[query.channel][query.direction]]
        : [...new Set(Object.values(TYPES[query.channel]))];
      params.push(types);
      total = `SELECT coalesce(sum(n), 0)::int AS total FROM comms.activity_counts WHERE org_id = $1 AND activity_type = ANY($${params.length}::text[])`;
    }
    // Items [first, first + pageSize) over activities expanded into perActivity items each.
    const first = pageOffset(query);
    const offset = Math.floor(first / perActivity);
    const limit = Math.ceil((first + query.pageSize) / perActivity) - offset;
    const { rows, total: activities } = await selectWindow<ActivityRow>(db, {
      total,
      rows: `SELECT ${ACTIVITY_COLUMNS} FROM comms.activities WHERE ${where.join(" AND ")} ORDER BY occurred_at DESC, id DESC`,
      params,
      limit,
      offset,
    });
    const items: MessageSlot[] = rows.flatMap((row): MessageSlot[] => {
      if (split)
        return [
          { row, direction: "outbound" },
          { row, direction: "inbound" },
        ];
      if (web) return [{ row, direction: query.direction ?? "inbound" }];
      return [{ row, direction: row.activity_type === TYPES[query.channel].inbound ? "inbound" : "outbound" }];
    });
    const skip = first - offset * perActivity;
    return { rows: items.slice(skip, skip + query.pageSize), total: activities * perActivity };
  }
}
