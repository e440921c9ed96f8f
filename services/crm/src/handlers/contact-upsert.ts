import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { orgOf, type ServiceContext } from "@voiceops/platform";
import type { CrmService, UpsertContactRequest } from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";
import type { CrmStores } from "../store/index.js";
import { toContact } from "../store/rows.js";
import { contactInput, upsertContact } from "../contacts/upsert.js";

export function contactUpsertHandlers(service: ServiceContext, stores: CrmStores) {
  return {
    async upsertContact(req: UpsertContactRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const violations = contactInput(org, req).violations;
      const contact = await service.write(ctx, (tx, emit) =>
        upsertContact(tx, stores.contacts, org, req, emit, violations),
      );
      return { contact: toContact(contact) };
    },
  } satisfies Partial<ServiceImpl<typeof CrmService>>;
}
