import {
  Code,
  ConnectError,
  createRouterTransport,
  type ConnectRouter,
  type HandlerContext,
  type Interceptor,
  type Transport,
} from "@connectrpc/connect";
import type { EventBus, Subscription } from "./bus/bus.js";
import { systemClock, type Clock } from "./clock.js";
import { DEFAULT_EVENT_RETENTION_DAYS } from "./config.js";
import type { Database, Queryable } from "./db/database.js";
import { migrate, readMigrations } from "./db/migrate.js";
import { maintainPeriodically } from "./db/table-maintenance.js";
import { startConsumer, type AnyEventConsumer } from "./events/consumer.js";
import type { DomainEvent } from "./events/envelope.js";
import { pruneLedgerPeriodically } from "./events/ledger.js";
import { enqueueEvents } from "./events/outbox.js";
import { OutboxRelay } from "./events/relay.js";
import { claimOf } from "./idempotency/interceptor.js";
import { idempotencyTtlSeconds, pruneKeysPeriodically } from "./idempotency/prune.js";
import { markStatement } from "./idempotency/records.js";
import type { Logger } from "./log.js";
import type { ObjectStore } from "./objects/store.js";
import { serviceTransport } from "./rpc/client.js";
import { configureProtobufTextEncoding, fastPath, localTransport } from "./fast-path/index.js";
import { serverInterceptors, serviceRoutes, startRpcServer } from "./rpc/server.js";
import { databaseState } from "./runtime.js";
import { tracedTransport } from "./tracing/rpc.js";
import { tracingOn } from "./tracing/state.js";

/** Records an event to publish when the surrounding transaction commits. */
export type Emit = (event: DomainEvent) => void;

/** The work of one write transaction. */
type WriteFn<T> = (tx: Queryable, emit: Emit) => Promise<T>;

/** What a service's handlers and consumers get to work with. */
export interface ServiceContext {
  name: string;
  schema: string;
  db: Database;
  bus: EventBus;
  logger: Logger;
  /** The time source; never read Date.now() for business rules. */
  clock: Clock;
  /** Recordings and uploaded files. */
  objects: ObjectStore;
  internalToken: string;
  /** The environment its launcher read at start; the service reads its own settings from it, once, as it starts. */
  env: Record<string, string | undefined>;
  /** Transport to another service, by name ("crm", "fieldops"...). */
  peer(name: string): Transport;
  /**
   * Runs fn in one transaction. Events it emits are written to the outbox in that same
   * transaction, so they are published if and only if the change is committed. A handler
   * passes its call's context first: when the call runs under an idempotency key, the same
   * transaction marks the key committed, so a retry can never make the change a second time.
   */
  write<T>(fn: WriteFn<T>): Promise<T>;
  write<T>(call: HandlerContext, fn: WriteFn<T>): Promise<T>;
}

/**
 * A service: one entry in the registry (registry.ts), one folder under services/, one of these
 * exported from its index as `<name>Service`.
 */
export interface ServiceModule {
  /** Its name in the registry. */
  name: string;
  /** The PostgreSQL schema it owns. */
  schema: string;
  migrationsDir: string;
  routes(context: ServiceContext): (router: ConnectRouter) => void;
  consumers?(context: ServiceContext): AnyEventConsumer[];
  /**
   * Work the service runs beside its RPCs (a scheduler, consumers it restarts itself), started
   * once the service is up and stopped with it.
   */
  background?(context: ServiceContext): Promise<Subscription>;
  /**
   * Tables besides the outbox whose rows are deleted soon after they are written: vacuumed at
   * every pass of the table maintenance where nothing else vacuums (PGlite, and a PostgreSQL
   * server whose autovacuum is off).
   */
  churnTables?: string[];
}

/** Whether a value loaded by name (the embedded launcher's) keeps the ServiceModule contract. */
export function isServiceModule(value: unknown): value is ServiceModule {
  if (typeof value !== "object" || value === null) return false;
  const module = value as Record<string, unknown>;
  return (
    typeof module.name === "string" &&
    typeof module.schema === "string" &&
    typeof module.migrationsDir === "string" &&
    typeof module.routes === "function" &&
    (module.consumers === undefined || typeof module.consumers === "function") &&
    (module.background === undefined || typeof module.background === "function") &&
    (module.churnTables === undefined ||
      (Array.isArray(module.churnTables) && module.churnTables.every((table) => typeof table === "string")))
  );
}

/**
 * Where the other services are: a base URL per service name, and for services running in this
 * process an in-process transport that skips the network (the gRPC port stays open for others).
 */
export class PeerRegistry {
  private readonly urls = new Map<string, string>();
  private readonly transports = new Map<string, Transport>();
  private readonly local = new Map<string, Transport>();

  /**
   * @param inProcess call services of this process directly (true) or over their gRPC port
   *   like a remote caller (false: tests of the network path).
   */
  constructor(private readonly inProcess = true) {}

  /** Where a service is: calls to it go to this address from now on (even if it ran in this process). */
  set(name: string, url: string): void {
    this.urls.set(name, url);
    this.transports.delete(name);
    this.local.delete(name);
  }

  /** A service running in this process: its URL for others, and its in-process transport. */
  setLocal(name: string, url: string, transport: Transport): void {
    this.set(name, url);
    if (this.inProcess) this.local.set(name, tracingOn() ? tracedTransport(transport, name) : transport);
  }

  url(name: string): string | undefined {
    return this.urls.get(name);
  }

  names(): string[] {
    return [...this.urls.keys()];
  }

  transport(name: string): Transport {
    const local = this.local.get(name);
    if (local) return local;
    return this.networkTransport(name);
  }

  /** The pooled HTTP/2 transport to a service's address, even when it runs in this process. */
  networkTransport(name: string): Transport {
    let transport = this.transports.get(name);
    if (!transport) {
      const url = this.urls.get(name);
      if (!url) throw new Error(`no address known for service ${name}`);
      transport = serviceTransport(url, name);
      if (tracingOn()) transport = tracedTransport(transport, name);
      this.transports.set(name, transport);
    }
    return transport;
  }

  /** Forgets a service stopped in this process. */
  remove(name: string): void {
    this.urls.delete(name);
    this.transports.delete(name);
    this.local.delete(name);
  }
}

interface ServiceRuntime {
  db: Database;
  bus: EventBus;
  logger: Logger;
  internalToken: string;
  host: string;
  port: number;
  peers: PeerRegistry;
  /** Defaults to the system clock. */
  clock?: Clock;
  objects: ObjectStore;
  /** The environment the launcher read at start (process.env, or the one a test gives). */
  env: Record<string, string | undefined>;
  /** EVENT_RETENTION_DAYS: how long the bus keeps events, and so the ledger its consumers' records (default 400). */
  eventRetentionDays?: number;
}

export interface RunningService {
  name: string;
  url: string;
  relay: OutboxRelay;
  /** Marks the service as going away; it keeps serving until stop(). */
  drain(): void;
  readonly draining: boolean;
  /** Stops taking calls, lets running ones finish, then stops consumers and the relay. */
  stop(): Promise<void>;
}

/**
 * The context a service's handlers and consumers run with: its events go to its outbox in the
 * writing transaction, and the relay is nudged after the commit.
 */
export function createServiceContext(
  module: ServiceModule,
  runtime: Omit<ServiceRuntime, "host" | "port">,
  logger: Logger,
  relay: OutboxRelay,
): ServiceContext {
  const { db, bus } = runtime;
  return {
    name: module.name,
    schema: module.schema,
    db,
    bus,
    logger,
    clock: runtime.clock ?? systemClock,
    objects: runtime.objects,
    internalToken: runtime.internalToken,
    env: runtime.env,
    peer: (name) => runtime.peers.transport(name),
    async write<T>(first: HandlerContext | WriteFn<T>, second?: WriteFn<T>): Promise<T> {
      const fn = typeof first === "function" ? first : second;
      if (!fn) throw new Error("write needs a function");
      const claim = typeof first === "function" ? undefined : claimOf(first);
      const events: DomainEvent[] = [];
      const result = await db.transaction(async (tx) => {
        const value = await fn(tx, (event) => events.push(event));
        enqueueEvents(tx, module.schema, events);
        if (claim) tx.atCommit(markStatement(claim));
        return value;
      });
      if (events.length > 0) relay.nudge();
      return result;
    },
  };
}

export async function startService(module: ServiceModule, runtime: ServiceRuntime): Promise<RunningService> {
  configureProtobufTextEncoding();
  const logger = runtime.logger.child({ service: module.name });
  const { db, bus } = runtime;
  const ttlSeconds = idempotencyTtlSeconds(runtime.env);
  await migrate(db, module.schema, readMigrations(module.migrationsDir));
  // Every write of events nudges the relay; its poll is for rows another replica committed or
  // a crash left claimed. On PGlite this process is the only writer, so a slow poll covers the
  // leases alone and the idle process does not write (and empty the read cache) every second.
  const relay = new OutboxRelay({
    db,
    bus,
    schema: module.schema,
    logger,
    idleMs: db.kind === "pglite" ? 30_000 : undefined,
  });
  const context = createServiceContext(module, runtime, logger, relay);
  const subscriptions: Subscription[] = [];
  for (const consumer of module.consumers?.(context) ?? []) {
    subscriptions.push(
      await startConsumer({ bus, db, schema: module.schema, logger, onEmitted: () => relay.nudge() }, consumer),
    );
  }
  const rpc = {
    name: module.name,
    internalToken: runtime.internalToken,
    logger,
    routes: module.routes(context),
    idempotency: { db, logger, ttlSeconds },
    health: async () => ({ database: await databaseState(db), bus: bus.healthy() ? "ok" : "down" }),
  };
  const server = await startRpcServer({ ...rpc, host: runtime.host, port: runtime.port });
  let open = true;
  const inProcess = {
    open: () => open,
    routes: serviceRoutes(rpc),
    interceptors: serverInterceptors(rpc),
    fallback: () => runtime.peers.networkTransport(module.name),
    url: server.url,
  };
  const local = fastPath("local") ? localTransport(inProcess) : routerTransport(inProcess);
  runtime.peers.setLocal(module.name, server.url, local);
  relay.start();
  const maintenance = maintainPeriodically(
    db,
    module.schema,
    [`${module.schema}.outbox`, ...(module.churnTables ?? [])],
    logger,
  );
  // By the system's time, not the service clock: event ids carry the system's time.
  const ledger = pruneLedgerPeriodically(
    db,
    module.schema,
    runtime.eventRetentionDays ?? DEFAULT_EVENT_RETENTION_DAYS,
    logger,
  );
  const keys = pruneKeysPeriodically(db, ttlSeconds, logger);
  let draining = false;
  const background = await module.background?.(context);
  return {
    name: module.name,
    url: server.url,
    relay,
    drain() {
      draining = true;
      server.drain();
    },
    get draining() {
      return draining;
    },
    async stop() {
      open = false;
      await server.close();
      await background?.stop();
      for (const subscription of subscriptions) await subscription.stop();
      await relay.stop();
      await maintenance.stop();
      await ledger.stop();
      await keys.stop();
    },
  };
}

/**
 * Connect's own in-process transport to a service's routes (FAST_PATH without `local`), through
 * the same interceptors as a call over the network; once the service has stopped, calls fail as
 * UNAVAILABLE, as they would over the network.
 */
function routerTransport(options: {
  routes: (router: ConnectRouter) => void;
  interceptors: Interceptor[];
  url: string;
  open: () => boolean;
}): Transport {
  const transport = createRouterTransport(options.routes, {
    router: { interceptors: options.interceptors, acceptCompression: [] },
  });
  const stopped = () => new ConnectError(`service at ${options.url} has stopped`, Code.Unavailable);
  return {
    unary: (...args) => (options.open() ? transport.unary(...args) : Promise.reject(stopped())),
    stream: (...args) => (options.open() ? transport.stream(...args) : Promise.reject(stopped())),
  };
}
