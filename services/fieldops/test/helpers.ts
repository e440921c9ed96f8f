import { expectStatus, type ApiClient } from "@voiceops/platform/testing";

// Records and helpers shared by the technician, on-call, dispatch and urgent-alert tests.

export const TECHNICIANS = "/api/technicians";
export const SCHEDULES = "/api/technicians/on-call/schedule";
export const CURRENT = "/api/technicians/on-call/current";
export const DISPATCHES = "/api/technicians/dispatch";
export const ALERTS = "/api/urgent-alerts";

export const TECHNICIAN_KEYS = [
  "available_now",
  "created_at",
  "email",
  "id",
  "is_on_call",
  "name",
  "notes",
  "on_call_now",
  "phone_number",
  "skills",
  "specialty",
  "status",
  "updated_at",
];

export interface Technician {
  id: string;
  name: string;
  phone_number: string | null;
  email: string | null;
  specialty: string | null;
  skills: string[];
  status: string;
  is_on_call: boolean;
  on_call_now: boolean;
  available_now: boolean;
  notes: string | null;
  created_at: string;
  updated_at: string;
}

export interface OnCallTechnician extends Technician {
  on_call_source: "flag" | "schedule";
  on_call_until: string | null;
}

export interface TechnicianSummary {
  id: string;
  name: string;
  phone_number: string | null;
}

export interface Schedule {
  id: string;
  technician_id: string;
  technician: TechnicianSummary | null;
  start_at: string;
  end_at: string;
  status: string;
  notes: string | null;
  created_at: string;
  updated_at: string;
}

export interface Dispatch {
  id: string;
  service_request_id: string;
  technician_id: string | null;
  technician: TechnicianSummary | null;
  status: string;
  eta_at: string | null;
  notes: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  cancelled_at: string | null;
}

export interface Items<T> {
  items: T[];
  total: number;
}

export const HOUR = 3_600_000;

/** An instant `hours` from now (negative: in the past), as RFC 3339. */
export function hoursFromNow(hours: number, from = Date.now()): string {
  return new Date(from + hours * HOUR).toISOString();
}

export async function createTechnician(client: ApiClient, body: Record<string, unknown>): Promise<Technician> {
  return expectStatus(await client.post<Technician>(TECHNICIANS, body), 200);
}

export async function listTechnicians(client: ApiClient, query = ""): Promise<Items<Technician>> {
  return expectStatus(await client.get<Items<Technician>>(`${TECHNICIANS}${query}`), 200);
}

export async function getTechnician(client: ApiClient, id: string): Promise<Technician> {
  return expectStatus(await client.get<Technician>(`${TECHNICIANS}/${id}`), 200);
}

export async function createSchedule(client: ApiClient, body: Record<string, unknown>): Promise<Schedule> {
  return expectStatus(await client.post<Schedule>(SCHEDULES, body), 200);
}

/** A service request of the jobs service, optionally flagged as an emergency of the given type. */
export async function createRequest(
  client: ApiClient,
  body: Record<string, unknown> = {},
  emergencyType?: string,
): Promise<{ id: string; provider_id: string | null }> {
  const created = expectStatus(
    await client.post<{ id: string; provider_id: string | null }>("/api/service-requests", {
      description: "Burst pipe",
      ...body,
    }),
    201,
  );
  if (emergencyType)
    expectStatus(
      await client.post(`/api/service-requests/${created.id}/emergency?emergency_type=${emergencyType}`),
      200,
    );
  return created;
}

export async function createDispatch(client: ApiClient, body: Record<string, unknown>): Promise<Dispatch> {
  return expectStatus(await client.post<Dispatch>(DISPATCHES, body), 200);
}

export async function getDispatch(client: ApiClient, id: string): Promise<Dispatch> {
  return expectStatus(await client.get<Dispatch>(`${DISPATCHES}/${id}`), 200);
}
