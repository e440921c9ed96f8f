import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { hashSecret, newEvent, newSecret, orgOf, type ServiceContext, notFound } from "@voiceops/platform";
import { PortalTokenCreatedSchema, PortalTokensRevokedSchema } from "@voiceops/proto/voiceops/crm/v1/crm_events_pb";
import type {
  CreatePortalTokenRequest,
  CrmService,
  RevokePortalTokenRequest,
} from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";
import type { PortalService, ResolvePortalTokenRequest } from "@voiceops/proto/voiceops/crm/v1/portal_service_pb";
import type { CrmStores } from "../store/index.js";

const DAY_MS = 24 * 60 * 60 * 1000;

/** `defaultDays`: how long a token lasts when the request does not say (PORTAL_TOKEN_DAYS). */
export function portalTokenHandlers(service: ServiceContext, stores: CrmStores, defaultDays: number) {
  const { portalTokens: tokens, contacts } = stores;
  return {
    async createPortalToken(req: CreatePortalTokenRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const now = service.clock.now();
      const expiresInDays = req.expiresInDays ?? defaultDays;
      const expiresAt = new Date(now.getTime() + expiresInDays * DAY_MS);
      const { secret, hash } = newSecret("pt_");
      await service.write(ctx, async (tx, emit) => {
        const contact = await contacts.get(tx, org.orgId, req.contactId);
        if (!contact) throw notFound("Contact");
        const revokedTokenIds = await tokens.revokeActive(tx, org.orgId, contact.id, now);
        const tokenId = await tokens.insert(tx, org.orgId, contact.id, hash, expiresAt);
        emit(
          newEvent(
            org.orgId,
            "crm.portal_token.created",
            PortalTokenCreatedSchema,
            create(PortalTokenCreatedSchema, {
              tokenId,
              contactId: contact.id,
              expiresAt: timestampFromDate(expiresAt),
              revokedTokenIds,
            }),
          ),
        );
      });
      return { token: secret, expiresAt: timestampFromDate(expiresAt), url: `/portal/${secret}` };
    },

    async revokePortalToken(req: RevokePortalTokenRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      await service.write(ctx, async (tx, emit) => {
        const contact = await contacts.get(tx, org.orgId, req.contactId);
        if (!contact) throw notFound("Contact");
        const tokenIds = await tokens.revokeActive(tx, org.orgId, contact.id, service.clock.now());
        if (tokenIds.length > 0)
          emit(
            newEvent(
              org.orgId,
              "crm.portal_token.revoked",
              PortalTokensRevokedSchema,
              create(PortalTokensRevokedSchema, { contactId: contact.id, tokenIds }),
            ),
          );
      });
      return {};
    },
  } satisfies Partial<ServiceImpl<typeof CrmService>>;
}

/** The contact an active portal token opens, for the gateway's portal routes (no org context yet). */
export function portalResolveHandlers(service: ServiceContext, stores: CrmStores) {
  return {
    async resolvePortalToken(req: ResolvePortalTokenRequest) {
      const token = await stores.portalTokens.findActive(service.db, hashSecret(req.token), service.clock.now());
      if (!token) throw notFound("Portal token");
      return { orgId: token.org_id, contactId: token.contact_id, expiresAt: timestampFromDate(token.expires_at) };
    },
  } satisfies ServiceImpl<typeof PortalService>;
}
