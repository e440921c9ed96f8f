import type { DescService } from "@bufbuild/protobuf";
import { CrmService } from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";

/** The API services whose annotated RPCs the gateway serves over REST. */
export const API_SERVICES: DescService[] = [CrmService];
