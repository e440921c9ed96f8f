/** The services of the system and the gRPC port each listens on when run alone. */
export const SERVICE_PORTS = {
  crm: 50061,
  jobs: 50062,
  fieldops: 50063,
  comms: 50064,
  analytics: 50065,
} as const;

export type ServiceName = keyof typeof SERVICE_PORTS;
export const SERVICE_NAMES = Object.keys(SERVICE_PORTS) as ServiceName[];

/** Environment variable holding a service's address, e.g. CRM_SERVICE_ADDR. */
export function serviceAddrVariable(name: ServiceName): string {
  return `${name.toUpperCase()}_SERVICE_ADDR`;
}
