import type { Queryable } from "@voiceops/platform";

/**
 * Claims on a resource's time (fieldops.reservations: active appointments and slot holds). The
 * exclusion constraint there is what refuses an overlap; this readies a transaction to claim.
 */
export class ReservationStore {
  /**
   * Readies `tx` to claim a resource's (technician, or null: the business) time over
   * [from, to): first, claims of one resource take turns (an advisory lock), since concurrent
   * inserts checked by an exclusion constraint wait on each other until PostgreSQL aborts one
   * as a deadlock; the constraint then refuses an overlap at once. Then the expired holds in
   * the way are deleted: a constraint cannot read the clock, so their claims stand until then.
   * Every claiming transaction calls this before anything else it locks.
   */
  async prepareClaim(
    tx: Queryable,
    orgId: string,
    technicianId: string | null,
    from: Date,
    to: Date,
    now: Date,
  ): Promise<void> {
    await tx.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [
      `fieldops.reservations:${orgId}:${technicianId ?? "business"}`,
    ]);
    await tx.query(
      `DELETE FROM fieldops.slot_holds
       WHERE org_id = $1 AND technician_id IS NOT DISTINCT FROM $2::uuid AND blocked && tstzrange($3, $4) AND expires_at <= $5`,
      [orgId, technicianId, from, to, now],
    );
  }
}
