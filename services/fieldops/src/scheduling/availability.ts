import { endOfLocalDay } from "@voiceops/platform";
import type { SchedulingSnapshot } from "../store/appointments.js";
import { BusyCalendar, heldSpan, type SlotRules, type Span } from "./slots.js";

/** A slot and who is free for it; technicianIds is empty when the business itself is the resource. */
interface FreeSlot extends Span {
  technicianIds: string[];
}

/** The business as a resource: appointments booked when the organization had no technicians. */
const BUSINESS = "";

/**
 * The candidate slots somebody is free for. Resources are the snapshot's technicians, or the
 * business itself when the organization has none. A resource is busy over its active
 * appointments' and live slot holds' held time (buffers included) and, while it has an active dispatch, from the
 * dispatch's creation to the end of today (the organization's local day): an emergency takes
 * the rest of the day, tomorrow stays bookable. A slot holds its own buffers too.
 */
export function freeSlots(
  snapshot: SchedulingSnapshot,
  candidates: Span[],
  rules: SlotRules,
  orgZone: string,
  now: Date,
): FreeSlot[] {
  const resources = snapshot.hasTechnicians ? snapshot.technicians.map((technician) => technician.id) : [BUSINESS];
  const busy = new Map<string, Span[]>(resources.map((id) => [id, []]));
  for (const appointment of snapshot.appointments) {
    busy.get(appointment.technician_id ?? BUSINESS)?.push({ start: appointment.heldFrom, end: appointment.heldTo });
  }
  for (const hold of snapshot.holds)
    busy.get(hold.technician_id ?? BUSINESS)?.push({ start: hold.heldFrom, end: hold.heldTo });
  const endOfToday = endOfLocalDay(orgZone, 0, now).getTime();
  for (const dispatch of snapshot.dispatches) {
    busy.get(dispatch.technician_id)?.push({ start: Math.min(dispatch.since, now.getTime()), end: endOfToday });
  }
  const calendars = resources.map((id) => ({ id, calendar: new BusyCalendar(busy.get(id) ?? []) }));
  const slots: FreeSlot[] = [];
  for (const slot of candidates) {
    const held = heldSpan(slot, rules);
    const free = calendars.filter(({ calendar }) => calendar.isFree(held)).map(({ id }) => id);
    if (free.length === 0) continue;
    slots.push({ ...slot, technicianIds: snapshot.hasTechnicians ? free : [] });
  }
  return slots;
}

/**
 * The free technicians of a slot, best first for a booking: the fewest active appointments
 * starting that local day (the snapshot must cover the day), then by name and id.
 */
export function rankForBooking(snapshot: SchedulingSnapshot, free: string[], day: Span): string[] {
  const counts = new Map<string, number>();
  for (const appointment of snapshot.appointments) {
    const start = appointment.start;
    if (appointment.technician_id && start >= day.start && start < day.end)
      counts.set(appointment.technician_id, (counts.get(appointment.technician_id) ?? 0) + 1);
  }
  const order = new Map(snapshot.technicians.map((technician, index) => [technician.id, index]));
  return [...free].sort(
    (a, b) => (counts.get(a) ?? 0) - (counts.get(b) ?? 0) || (order.get(a) ?? 0) - (order.get(b) ?? 0),
  );
}
