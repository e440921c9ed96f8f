import type { ServiceImpl } from "@connectrpc/connect";
import type { ServiceContext } from "@voiceops/platform";
import type { JobsService } from "@voiceops/proto/voiceops/jobs/v1/jobs_service_pb";

/** Service listings: the catalog of services the business offers. */
export function listingHandlers(_service: ServiceContext): Partial<ServiceImpl<typeof JobsService>> {
  return {};
}
