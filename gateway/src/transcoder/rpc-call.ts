import type { DescMethod } from "@bufbuild/protobuf";
import { orgHeaders } from "@voiceops/platform";
import type { Principal } from "../identity/store.js";

// What every caller of a service RPC on behalf of an API client shares (the REST transcoder and
// the MCP tools): the metadata that carries the organization. How a failed call becomes the
// status and detail the client is told is rpcFailure (errors/rpc-failure.ts).

/** Service names by service type name: asked on every call, so not split again each time. */
const serviceNames = new Map<string, string>();

/** "voiceops.crm.v1.CrmService" is served by the service named "crm". */
export function serviceNameOfType(typeName: string): string {
  let name = serviceNames.get(typeName);
  if (name === undefined) {
    name = typeName.split(".")[1] ?? "";
    serviceNames.set(typeName, name);
  }
  return name;
}

/** The service that serves an RPC. */
export function serviceOfMethod(method: DescMethod): string {
  return serviceNameOfType(method.parent.typeName);
}

/** The metadata of a call made for an authenticated client: its organization, role and request id. */
export function principalHeaders(
  principal: Principal,
  requestId: string,
  internalToken: string,
): Record<string, string> {
  return orgHeaders(
    {
      orgId: principal.orgId,
      timezone: principal.timezone,
      country: principal.country,
      businessHours: principal.businessHours,
      role: principal.role,
      requestId,
    },
    internalToken,
  );
}
