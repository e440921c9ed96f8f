import type { DescService } from "@bufbuild/protobuf";
import { OutboundService } from "@voiceops/proto/voiceops/comms/v1/outbound_service_pb";
import { CommsService } from "@voiceops/proto/voiceops/comms/v1/comms_service_pb";
import { AnalyticsService } from "@voiceops/proto/voiceops/analytics/v1/analytics_service_pb";
import { KnowledgeService } from "@voiceops/proto/voiceops/comms/v1/knowledge_service_pb";
import { CrmService } from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";
import { FieldopsService } from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";
import { JobsService } from "@voiceops/proto/voiceops/jobs/v1/jobs_service_pb";

/** The API services whose annotated RPCs the gateway serves over REST. */
export const API_SERVICES: DescService[] = [CrmService, JobsService, FieldopsService, CommsService, OutboundService, KnowledgeService, AnalyticsService];
