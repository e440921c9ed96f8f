import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import {
  CommsService,
  type LookupSchema,
  RecordLookupsRequestSchema,
} from "@voiceops/proto/voiceops/comms/v1/comms_service_pb";
import type { Logger, PeerRegistry } from "@voiceops/platform";
import type { Principal } from "../identity/store.js";
import { principalHeaders, serviceOfMethod } from "../transcoder/rpc-call.js";

/** How long a read tool's call waits to be recorded with others, and how many are sent at most in one write. */
const GATHER_MS = 1000;
const MAX_BATCH = 500;

/**
 * An organization's calls gathered so far: each call's tool and time, as plain strings and
 * numbers. They live up to GATHER_MS, long enough to be promoted by the garbage collector; a
 * message per call (with a Timestamp message in it) would cost the collector several objects
 * per call. The messages are made once, when the batch is sent.
 */
interface Pending {
  principal: Principal;
  requestId: string;
  tools: string[];
  times: number[];
}

interface LookupRecorderOptions {
  peers: PeerRegistry;
  internalToken: string;
  logger: Logger;
  timeoutMs?: number;
}

/**
 * Records read tools' calls as LOOKUP activities (the reference's "read-tool calls", hidden from
 * listings unless lookups=true), with the tool's name in metadata.tool. Calls are gathered for
 * GATHER_MS and each organization's are written in one RPC (one transaction, one
 * comms.lookups.recorded event): one write for many calls instead of one each. The caller never waits for it; a batch that fails is logged with its
 * size, never dropped silently, and `close` writes what is still gathered.
 */
export class LookupRecorder {
  private readonly pending = new Map<string, Pending>();
  private timer: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly options: LookupRecorderOptions) {}

  record(principal: Principal, requestId: string, tool: string, at: Date): void {
    let entry = this.pending.get(principal.orgId);
    if (!entry) {
      entry = { principal, requestId, tools: [], times: [] };
      this.pending.set(principal.orgId, entry);
    }
    entry.tools.push(tool);
    entry.times.push(at.getTime());
    if (entry.tools.length >= MAX_BATCH) {
      this.pending.delete(principal.orgId);
      this.send(entry);
    }
    this.timer ??= setTimeout(() => this.flush(), GATHER_MS);
  }

  /** Sends everything gathered so far. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const entries = [...this.pending.values()];
    this.pending.clear();
    for (const entry of entries) this.send(entry);
  }

  /** Sends what is gathered and waits for every write. */
  async close(): Promise<void> {
    this.flush();
    await Promise.all([...this.inFlight]);
  }

  private send(entry: Pending): void {
    const { peers, internalToken, logger, timeoutMs } = this.options;
    const headers = principalHeaders(entry.principal, entry.requestId, internalToken);
    const method = CommsService.method.recordLookups;
    const lookups: MessageInitShape<typeof LookupSchema>[] = entry.tools.map((tool, i) => ({
      tool,
      occurredAt: timestampFromMs(entry.times[i] as number),
    }));
    const write = peers
      .transport(serviceOfMethod(method))
      .unary(method, undefined, timeoutMs ?? 15_000, headers, create(RecordLookupsRequestSchema, { lookups }))
      .then(
        () => undefined,
        (error: unknown) => {
          logger.warn(
            { err: error, orgId: entry.principal.orgId, lookups: lookups.length },
            "LOOKUP activities of agent tool calls not recorded",
          );
        },
      );
    this.inFlight.add(write);
    void write.finally(() => this.inFlight.delete(write));
  }
}
