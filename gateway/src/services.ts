import type { DescService } from "@bufbuild/protobuf";
import { SERVICES } from "@voiceops/platform/registry";

/** The API services whose annotated RPCs the gateway serves over REST: the registry's, in its order. */
export const API_SERVICES: DescService[] = SERVICES.flatMap((service): readonly DescService[] => service.api);
