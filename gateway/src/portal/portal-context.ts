import {
  create,
  type DescMessage,
  type DescMethod,
  type MessageInitShape,
  type MessageShape,
} from "@bufbuild/protobuf";
import { ConnectError } from "@connectrpc/connect";
import { MetadataKeys, orgHeaders, type Clock, type Logger, type PeerRegistry } from "@voiceops/platform";
import { PortalService } from "@voiceops/proto/voiceops/crm/v1/portal_service_pb";
import { fastApiEntry, rpcFailure, type ValidationEntry } from "../errors/index.js";
import type { IdentityStore } from "../identity/store.js";
import { serviceOfMethod } from "../transcoder/rpc-call.js";

/** A refusal the portal answers as the REST API would: a status and a detail. */
export class PortalFailure extends Error {
  constructor(
    readonly status: number,
    readonly detail: string | ValidationEntry[],
  ) {
    super(typeof detail === "string" ? detail : "invalid request");
  }
}

export interface PortalDeps {
  peers: PeerRegistry;
  internalToken: string;
  logger: Logger;
  identity: IdentityStore;
  clock: Clock;
}

const TIMEOUT_MS = 15_000;
type Unary<I extends DescMessage, O extends DescMessage> = DescMethod & { methodKind: "unary"; input: I; output: O };

/** Where a refused field came from in the portal request. */
type PortalInput = "body" | "query";

async function unary<I extends DescMessage, O extends DescMessage>(
  deps: PortalDeps,
  method: Unary<I, O>,
  headers: Record<string, string>,
  init: MessageInitShape<I>,
  requestId: string,
  where: PortalInput,
) {
  try {
    const response = await deps.peers
      .transport(serviceOfMethod(method))
      .unary(method, undefined, TIMEOUT_MS, headers, create(method.input, init));
    return response.message as MessageShape<O>;
  } catch (error) {
    const connectError = ConnectError.from(error);
    const failure = rpcFailure(
      connectError,
      (violations) => violations.map((v) => fastApiEntry([where, ...(v.field ? v.field.split(".") : [])], v)),
      [where],
    );
    if (failure.log)
      deps.logger[failure.log]({ err: connectError, requestId, rpc: method.name }, "portal rpc call failed");
    throw new PortalFailure(failure.status, failure.detail);
  }
}

/**
 * One portal request: the token's organization and contact, and calls of the services' RPCs on
 * the organization's behalf (as a member would make them), so the portal is checked, scoped and
 * evented exactly as the REST routes it stands for.
 */
export class PortalContext {
  private constructor(
    readonly deps: PortalDeps,
    readonly businessName: string,
    readonly contactId: string,
    readonly expiresAt: Date,
    private readonly headers: Record<string, string>,
    private readonly requestId: string,
  ) {}

  /** The context of an active token; a 404 for an unknown, revoked or expired one. */
  static async open(deps: PortalDeps, token: string, requestId: string): Promise<PortalContext> {
    const componentHeaders = { [MetadataKeys.internalToken]: deps.internalToken, [MetadataKeys.requestId]: requestId };
    const resolved = await unary(
      deps,
      PortalService.method.resolvePortalToken,
      componentHeaders,
      { token },
      requestId,
      "body",
    );
    const org = await deps.identity.getOrganization(resolved.orgId);
    if (!org) throw new PortalFailure(404, "Portal token not found");
    const headers = orgHeaders(
      {
        orgId: org.id,
        timezone: org.timezone,
        country: org.default_country,
        businessHours: org.business_hours,
        role: "member",
        requestId,
      },
      deps.internalToken,
    );
    const expiresAt = resolved.expiresAt ? new Date(Number(resolved.expiresAt.seconds) * 1000) : new Date();
    return new PortalContext(deps, org.name, resolved.contactId, expiresAt, headers, requestId);
  }

  call<I extends DescMessage, O extends DescMessage>(
    method: Unary<I, O>,
    init: MessageInitShape<I>,
    where: PortalInput = "body",
  ): Promise<MessageShape<O>> {
    return unary(this.deps, method, this.headers, init, this.requestId, where);
  }
}
