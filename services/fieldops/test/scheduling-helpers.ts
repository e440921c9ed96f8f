import { ApiClient, expectStatus, type AdminClient, type Tenant } from "@voiceops/platform/testing";

// Records and helpers of the scheduling tests.

export const TYPES = "/api/scheduling/types";
export const AVAILABILITY = "/api/scheduling/check-availability";
export const BOOK = "/api/scheduling/book";
export const MANAGE = "/api/scheduling/manage";
export const APPOINTMENTS = "/api/scheduling/appointments";

export interface AppointmentType {
  id: string;
  name: string;
  description: string | null;
  duration_minutes: number;
  slot_interval_minutes: number;
  buffer_before_minutes: number;
  buffer_after_minutes: number;
  min_notice_minutes: number;
  max_days_ahead: number;
  required_skills: string[];
  is_active: boolean;
  created_at: string;
  updated_at: string;
}

export interface Slot {
  start: string;
  end: string;
  technician_ids: string[];
}

export interface Availability {
  appointment_type_id: string;
  timezone: string;
  slots: Slot[];
}

export interface Appointment {
  id: string;
  appointment_type_id: string;
  appointment_type: { id: string; name: string };
  contact_id: string;
  contact: { id: string; name: string | null; phone_number: string | null };
  technician_id: string | null;
  service_request_id: string | null;
  start_at: string;
  end_at: string;
  status: string;
  notes: string | null;
  cancel_reason: string | null;
  rescheduled_from_id: string | null;
  created_at: string;
  updated_at: string;
}

export type WeeklyHoursInput = Partial<
  Record<"mon" | "tue" | "wed" | "thu" | "fri" | "sat" | "sun", { start: string; end: string }[]>
>;

/** Every day of the week open over the same hours. */
export function everyDay(start: string, end: string): WeeklyHoursInput {
  const day = [{ start, end }];
  return { mon: day, tue: day, wed: day, thu: day, fri: day, sat: day, sun: day };
}

/** A fresh organization with the given zone and business hours, and an owner, admin and member key. */
export async function schedulingTenant(
  baseUrl: string,
  admin: AdminClient,
  org: { timezone?: string; business_hours?: WeeklyHoursInput } = {},
): Promise<Tenant & { adminKey: ApiClient }> {
  const created = await admin.request("POST", "/admin/organizations", {
    name: `Scheduling ${Math.random().toString(36).slice(2)}`,
    ...org,
  });
  if (created.status !== 201) throw new Error(`create organization: ${created.status} ${JSON.stringify(created.body)}`);
  const orgId = created.body.id as string;
  const [owner, member, adminKey] = await Promise.all([
    admin.createKey(orgId, { role: "owner" }),
    admin.createKey(orgId, { role: "member" }),
    admin.createKey(orgId, { role: "admin" }),
  ]);
  return {
    orgId,
    owner: new ApiClient(baseUrl, owner.key),
    member: new ApiClient(baseUrl, member.key),
    adminKey: new ApiClient(baseUrl, adminKey.key),
    admin,
  };
}

export async function createType(client: ApiClient, body: Record<string, unknown> = {}): Promise<AppointmentType> {
  return expectStatus(
    await client.post<AppointmentType>(TYPES, { name: "Visit", duration_minutes: 60, min_notice_minutes: 0, ...body }),
    201,
  );
}

export async function availability(client: ApiClient, body: Record<string, unknown>): Promise<Availability> {
  return expectStatus(await client.post<Availability>(AVAILABILITY, body), 200);
}

export async function book(client: ApiClient, body: Record<string, unknown>): Promise<Appointment> {
  return expectStatus(await client.post<Appointment>(BOOK, body), 201);
}

export async function manage(client: ApiClient, body: Record<string, unknown>): Promise<Appointment> {
  return expectStatus(await client.post<Appointment>(MANAGE, body), 200);
}
