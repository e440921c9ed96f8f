import {
  type AdminClient,
  expectStatus,
  newTenant,
  OPEN_AROUND_THE_CLOCK,
  type Tenant,
} from "@voiceops/platform/testing";

// Tenants, contacts with quotes and portal tokens of the portal's tests (API and browser).

/** A tenant open every hour of every day, so that tomorrow always has slots. */
export function openTenant(baseUrl: string, admin: AdminClient): Promise<Tenant> {
  return newTenant(baseUrl, admin, {
    name: `Portal Plumbing ${Math.random().toString(36).slice(2)}`,
    business_hours: OPEN_AROUND_THE_CLOCK,
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
