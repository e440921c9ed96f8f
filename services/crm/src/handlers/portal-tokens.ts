import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { newEvent, newSecret, orgOf, type ServiceContext, notFound, withDefaults } from "@voiceops/platform";
import { PortalTokenCreatedSchema, PortalTokensRevokedSchema } from "@voiceops/proto/voiceops/crm/v1/crm_events_pb";
import { CreatePortalTokenRequestSchema, type CreatePortalTokenRequest, type CrmService, type RevokePortalTokenRequest } from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";
import type { CrmStores } from "../store/index.js";

const DAY_MS = 24 * 60 * 60 * 1000;

export function portalTokenHandlers(service: ServiceContext, stores: CrmStores) {
  const { portalTokens: tokens, contacts } = stores;
  return {
    async createPortalToken(req: CreatePortalTokenRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const now = service.clock.now();
      const { expiresInDays } = withDefaults(CreatePortalTokenRequestSchema, req, "expiresInDays");
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
            create(PortalTokenCreatedSchema, { tokenId, contactId: contact.id, expiresAt: timestampFromDate(expiresAt), revokedTokenIds }),
          ),
        );
      });
      return { token: secret, expiresAt: timestampFromDate(expiresAt) };
    },

    async revokePortalToken(req: RevokePortalTokenRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      await service.write(ctx, async (tx, emit) => {
        const contact = await contacts.get(tx, org.orgId, req.contactId);
        if (!contact) throw notFound("Contact");
        const tokenIds = await tokens.revokeActive(tx, org.orgId, contact.id, service.clock.now());
        if (tokenIds.length > 0)
          emit(newEvent(org.orgId, "crm.portal_token.revoked", PortalTokensRevokedSchema, create(PortalTokensRevokedSchema, { contactId: contact.id, tokenIds })));
      });
      return {};
    },
  } satisfies Partial<ServiceImpl<typeof CrmService>>;
}
