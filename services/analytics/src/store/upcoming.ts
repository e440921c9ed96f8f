import type { Queryable } from "@voiceops/platform";

type UpcomingType = "appointment" | "lead_follow_up" | "service_request_due" | "campaign_call" | "on_call_shift";

interface UpcomingEntry {
  at: Date;
  endsAt?: Date | null;
  title: string;
  contactId?: string | null;
  technicianId?: string | null;
}

/** Sets (or, with null, clears) the moment a record comes up. */
export async function setUpcoming(
  tx: Queryable,
  orgId: string,
  type: UpcomingType,
  refId: string,
  entry: UpcomingEntry | null,
): Promise<void> {
  if (!entry) {
    await tx.query(`DELETE FROM analytics.upcoming WHERE org_id = $1 AND type = $2 AND ref_id = $3`, [
      orgId,
      type,
      refId,
    ]);
    return;
  }
  await tx.query(
    `INSERT INTO analytics.upcoming (org_id, type, ref_id, at, ends_at, title, contact_id, technician_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (org_id, type, ref_id) DO UPDATE
       SET at = EXCLUDED.at, ends_at = EXCLUDED.ends_at, title = EXCLUDED.title, contact_id = EXCLUDED.contact_id, technician_id = EXCLUDED.technician_id`,
    [
      orgId,
      type,
      refId,
      entry.at,
      entry.endsAt ?? null,
      entry.title,
      entry.contactId ?? null,
      entry.technicianId ?? null,
    ],
  );
}
