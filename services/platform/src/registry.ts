import type { DescService } from "@bufbuild/protobuf";
import { AnalyticsService } from "@voiceops/proto/voiceops/analytics/v1/analytics_service_pb";
import { CommsService } from "@voiceops/proto/voiceops/comms/v1/comms_service_pb";
import { KnowledgeService } from "@voiceops/proto/voiceops/comms/v1/knowledge_service_pb";
import { OutboundService } from "@voiceops/proto/voiceops/comms/v1/outbound_service_pb";
import { CrmService } from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";
import { FieldopsService } from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";
import { JobsService } from "@voiceops/proto/voiceops/jobs/v1/jobs_service_pb";
import { WebhooksService } from "@voiceops/proto/voiceops/webhooks/v1/webhooks_service_pb";
import { ConfigError, envString } from "./config.js";

// The one list of the system's services. It names proto descriptors only, never a service's
// implementation, so the gateway reads it without loading any service's code.

/** A service of the system. */
interface ServiceEntry {
  /**
   * Its name, which is also its folder services/<name>/ (src/index.ts exports its ServiceModule
   * as `<name>Service`, src/main.ts runs it alone), its bundle dist/<name>.js, its manifest
   * deploy/base/<name>.yaml and its address variable <NAME>_SERVICE_ADDR.
   */
  readonly name: string;
  /** Its gRPC port when run alone; its ops port (health, metrics) is 1000 above. */
  readonly port: number;
  /** The proto services it serves whose annotated RPCs the gateway serves over REST. */
  readonly api: readonly DescService[];
}

/** Every service, in start order (those the others call first). */
export const SERVICES = [
  { name: "crm", port: 50061, api: [CrmService] },
  { name: "fieldops", port: 50063, api: [FieldopsService] },
  { name: "jobs", port: 50062, api: [JobsService] },
  { name: "comms", port: 50064, api: [CommsService, OutboundService, KnowledgeService] },
  { name: "analytics", port: 50065, api: [AnalyticsService] },
  { name: "webhooks", port: 50066, api: [WebhooksService] },
] as const satisfies readonly ServiceEntry[];

/** A registered service's name: "crm", "fieldops"... */
export type ServiceName = (typeof SERVICES)[number]["name"];

/** The proto services the registered service `N` serves. */
export type ApiOf<N extends ServiceName> = Extract<(typeof SERVICES)[number], { name: N }>["api"][number];

export const SERVICE_NAMES: readonly string[] = SERVICES.map((service) => service.name);

/** A registered service by name; an unknown name is a programming error. */
export function serviceEntry(name: string): ServiceEntry {
  const entry = SERVICES.find((service) => service.name === name);
  if (!entry) throw new Error(`no service named "${name}" in the registry (services/platform/src/registry.ts)`);
  return entry;
}

/** Environment variable holding a service's address, e.g. CRM_SERVICE_ADDR. */
export function serviceAddrVariable(name: string): string {
  return `${name.toUpperCase()}_SERVICE_ADDR`;
}

/**
 * Where every registered service is, by name: its <NAME>_SERVICE_ADDR, else SERVICE_ADDR_TEMPLATE
 * with {name} and {port} (its registered gRPC port) filled in, by default http://127.0.0.1:{port}.
 */
export function serviceAddresses(env: Record<string, string | undefined>): Map<string, string> {
  const template = envString("SERVICE_ADDR_TEMPLATE", "http://127.0.0.1:{port}", env);
  const addresses = new Map<string, string>();
  for (const { name, port } of SERVICES) {
    const variable = serviceAddrVariable(name);
    const given = env[variable] || undefined;
    const url = given ?? template.replaceAll("{name}", name).replaceAll("{port}", String(port));
    if (!URL.canParse(url) || !["http:", "https:"].includes(new URL(url).protocol)) {
      throw new ConfigError(given ? variable : "SERVICE_ADDR_TEMPLATE", `must give an http(s) URL, got "${url}"`);
    }
    addresses.set(name, url);
  }
  return addresses;
}
