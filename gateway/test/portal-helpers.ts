import { type AdminClient, expectStatus, newTenant, type Tenant } from "@voiceops/platform/testing";

// Tenants, contacts with quotes and portal tokens of the portal's tests (API and browser).

const ALL_DAY = [{ start: "00:00", end: "24:00" }];

/** A tenant open every hour of every day, so that tomorrow always has slots. */
export function openTenant(baseUrl: string, admin: AdminClient): Promise<Tenant> {
  const week = Object.fromEntries(["mon", "tue", "wed", "thu", "fri", "sat", "sun"].map((d) => [d, ALL_DAY]));
  return newTenant(baseUrl, admin, {
    name: `Portal Plumbing ${Math.random().toString(36).slice(2)}`,
    business_hours: week,
  });
}

/** A service request of the contact with a pending quote of 125.00. */
export async function requestWithQuote(t: Tenant, contactId: string, description = "Leaking tap"): Promise<string> {
  const requestId = expectStatus(
    await t.owner.post("/api/service-requests", { description, contact_id: contactId }),
    201,
  ).id as string;
  expectStatus(await t.owner.post(`/api/service-requests/${requestId}/quote?quote_amount_cents=12500`), 200);
  return requestId;
}

export async function contactWithQuote(t: Tenant, name: string): Promise<{ contactId: string; requestId: string }> {
  const contactId = expectStatus(await t.owner.post("/api/contacts", { name }), 201).id as string;
  return { contactId, requestId: await requestWithQuote(t, contactId) };
}

/** A portal token of the contact. */
export async function mint(t: Tenant, contactId: string): Promise<string> {
  return expectStatus(await t.owner.post(`/api/contacts/${contactId}/portal-token`), 201).token as string;
}
