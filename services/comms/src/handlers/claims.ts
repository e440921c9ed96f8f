import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { orgOf, type ServiceContext, notFound, withDefaults } from "@voiceops/platform";
import {
  ClaimCallsRequestSchema,
  type ClaimCallsRequest,
  type OutboundCallsService,
  type RenewCallLeaseRequest,
} from "@voiceops/proto/voiceops/comms/v1/outbound_service_pb";
import { LEASE_MS, type OutboundEngine } from "../outbound/engine.js";
import { commsErrors } from "../errors.js";

/** The voice runtime's side: claiming due calls under a lease, and keeping a long call's lease. */
export function claimHandlers(service: ServiceContext, engine: OutboundEngine) {
  return {
    async claimCalls(req: ClaimCallsRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const { calls, claimedAt } = await engine.claim(
        ctx,
        org.orgId,
        withDefaults(ClaimCallsRequestSchema, req, "maxCalls").maxCalls,
      );
      return { calls, claimedAt: timestampFromDate(claimedAt) };
    },

    async renewCallLease(req: RenewCallLeaseRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const leaseUntil = new Date(service.clock.now().getTime() + LEASE_MS);
      const renewed = await service.write(ctx, (tx) =>
        engine.stores.requests.renewLease(tx, org.orgId, req.callRequestId.toLowerCase(), leaseUntil),
      );
      if (!renewed) {
        if (!(await engine.stores.requests.get(service.db, org.orgId, req.callRequestId.toLowerCase())))
          throw notFound("Call request");
        throw commsErrors.CALL_REQUEST_NOT_DIALING();
      }
      return { leaseExpiresAt: timestampFromDate(leaseUntil) };
    },
  } satisfies ServiceImpl<typeof OutboundCallsService>;
}
