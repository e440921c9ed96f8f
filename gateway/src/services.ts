import type { DescService } from "@bufbuild/protobuf";
import { CrmService } from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";
import { FieldopsService } from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";
import { JobsService } from "@voiceops/proto/voiceops/jobs/v1/jobs_service_pb";

/** The API services whose annotated RPCs the gateway serves over REST. */
export const API_SERVICES: DescService[] = [CrmService, JobsService, FieldopsService];
