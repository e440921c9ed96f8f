import { ConnectError } from "@connectrpc/connect";
import {
  create,
  type DescMessage,
  type DescMethod,
  type MessageInitShape,
  type MessageShape,
} from "@bufbuild/protobuf";
import {
  IdempotencyMetadata,
  idempotencyMetadata,
  idempotencyRefusalOf,
  isReplayed,
  methodRules,
  type Clock,
  type Logger,
  type PeerRegistry,
  type Violation,
} from "@voiceops/platform";
import { fastApiEntry, refusal, type ValidationEntry, rpcFailure } from "../errors/index.js";
import type { Principal } from "../identity/store.js";
import { principalHeaders, serviceOfMethod } from "../transcoder/rpc-call.js";
import { ToolFailure } from "./errors.js";
import type { ToolIdempotency } from "./idempotency.js";
import type { LookupRecorder } from "./lookups.js";
import type { ToolParam } from "./schemas.js";

/** What the tools need of the gateway. */
export interface McpDeps {
  peers: PeerRegistry;
  internalToken: string;
  logger: Logger;
  clock: Clock;
  /** Where read tools' calls are recorded as LOOKUP activities. */
  lookups: LookupRecorder;
  timeoutMs?: number;
}

/**
 * One tool call of an authenticated client: it calls the services' RPCs directly, through the
 * peer transports and with the metadata the REST transcoder sends (rpc-call.ts), so a tool is
 * checked, scoped and served exactly as the REST routes it stands for.
 */
export class ToolContext {
  private readonly headers: Record<string, string>;
  /** RPC calls made so far: a keyed call's step (idempotencyMetadata). */
  private calls = 0;
  /** Whether an answer came from an idempotency key's kept answers. */
  replayed = false;

  constructor(
    readonly deps: McpDeps,
    readonly principal: Principal,
    readonly requestId: string,
    readonly tool: string,
    private readonly params: ToolParam[],
    private readonly idempotency?: ToolIdempotency,
  ) {
    this.headers = principalHeaders(principal, requestId, deps.internalToken);
  }

  /** Calls an RPC; its failure is a ToolFailure with the REST API's status and detail. */
  async call<I extends DescMessage, O extends DescMessage>(
    method: DescMethod & { methodKind: "unary"; input: I; output: O },
    init: MessageInitShape<I>,
  ): Promise<MessageShape<O>> {
    const roles = methodRules(method)?.roles ?? [];
    if (roles.length > 0 && !roles.includes(this.principal.role)) {
      throw new ToolFailure(403, `This operation requires the ${roles.join(" or ")} role`);
    }
    try {
      const transport = this.deps.peers.transport(serviceOfMethod(method));
      // Every call of a keyed tool carries a key of its own, in call order, so a retry making the
      // same calls finds each one's kept answer (reads ignore keys).
      const headers = this.idempotency
        ? { ...this.headers, ...idempotencyMetadata(this.idempotency.key, this.idempotency.fingerprint, this.calls) }
        : this.headers;
      this.calls++;
      const response = await transport.unary(
        method,
        undefined,
        this.deps.timeoutMs ?? 15_000,
        headers,
        create(method.input, init),
      );
      if (isReplayed(response.header)) this.replayed = true;
      return response.message as MessageShape<O>;
    } catch (error) {
      const connectError = ConnectError.from(error);
      if (idempotencyRefusalOf(connectError) === "mismatch")
        throw new ToolFailure(422, [refusal(["idempotency_key"], connectError.rawMessage)]);
      if (connectError.metadata.get(IdempotencyMetadata.replayed) === "true") this.replayed = true;
      const failure = rpcFailure(connectError, (violations) => this.entriesOf(method.input, violations), []);
      const where = { err: connectError, requestId: this.requestId, tool: this.tool, rpc: method.name };
      if (failure.log === "warn") this.deps.logger.warn(where, "rpc call of a tool failed in transit");
      if (failure.log === "error") this.deps.logger.error(where, "rpc call of a tool failed");
      throw new ToolFailure(failure.status, failure.detail);
    }
  }

  /** A service's violations on a request, placed at the tool's arguments they came from. */
  entriesOf(message: DescMessage, violations: Violation[]): ValidationEntry[] {
    return violations.map((v) => {
      const [head = "", ...rest] = v.field === "" ? [] : v.field.split(".");
      const p = this.params.find((candidate) => candidate.field.parent === message && candidate.field.name === head);
      const path =
        head === "" ? [] : [p?.name ?? head, ...rest.map((part) => (/^\d+$/.test(part) ? Number(part) : part))];
      return fastApiEntry(path, v);
    });
  }

  /** A refusal of the tool itself, on the argument the violation names, worded as a 422 of the REST API. */
  invalid(violation: Violation): ToolFailure {
    return new ToolFailure(422, [fastApiEntry(violation.field === "" ? [] : violation.field.split("."), violation)]);
  }
}
