import { randomUUID } from "node:crypto";
import { Code } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "@voiceops/platform";
import { failureOf, handlerTestbed, type HandlerTestbed } from "@voiceops/platform/testing";
import { CrmService } from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";
import { PortalService } from "@voiceops/proto/voiceops/crm/v1/portal_service_pb";
import { crmService } from "../src/index.js";

const DAY = 24 * 60 * 60 * 1000;

describe("PortalService.ResolvePortalToken", () => {
  let bed: HandlerTestbed;
  const clock = new ManualClock("2026-03-05T12:00:00Z");
  const orgId = randomUUID();

  beforeAll(async () => {
    bed = await handlerTestbed(crmService, { clock, env: { PORTAL_TOKEN_DAYS: "2" } });
  });
  afterAll(async () => {
    await bed?.close();
  });

  it("resolves an active token to its organization and contact, until it expires (PORTAL_TOKEN_DAYS)", async () => {
    const crm = bed.client(CrmService, { orgId });
    const { contact } = await crm.createContact({ name: "Portal" });
    const contactId = contact?.id ?? "";
    const issued = await crm.createPortalToken({ contactId });
    expect(issued.url).toBe(`/portal/${issued.token}`);
    expect(Number(issued.expiresAt?.seconds) * 1000).toBe(clock.now().getTime() + 2 * DAY);

    // Resolved before any organization is known: another organization's context changes nothing.
    const portal = bed.client(PortalService, { orgId: randomUUID() });
    expect(await portal.resolvePortalToken({ token: issued.token })).toMatchObject({ orgId, contactId });

    clock.advance(2 * DAY);
    expect((await failureOf(portal.resolvePortalToken({ token: issued.token }))).code).toBe(Code.NotFound);
  });

  it("does not resolve an unknown or revoked token", async () => {
    const crm = bed.client(CrmService, { orgId });
    const { contact } = await crm.createContact({ name: "Revoked" });
    const issued = await crm.createPortalToken({ contactId: contact?.id ?? "" });
    const portal = bed.client(PortalService);
    await crm.revokePortalToken({ contactId: contact?.id ?? "" });
    expect((await failureOf(portal.resolvePortalToken({ token: issued.token }))).code).toBe(Code.NotFound);
    expect((await failureOf(portal.resolvePortalToken({ token: "pt_unknown" }))).code).toBe(Code.NotFound);
  });
});
