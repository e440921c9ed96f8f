import type { ConnectRouter, Transport } from "@connectrpc/connect";
import type { EventBus, Subscription } from "./bus/bus.js";
import type { Database, Queryable } from "./db/database.js";
import { migrate, readMigrations } from "./db/migrate.js";
import { startConsumer, type AnyEventConsumer } from "./events/consumer.js";
import type { DomainEvent } from "./events/envelope.js";
import { enqueueEvents } from "./events/outbox.js";
import { OutboxRelay } from "./events/relay.js";
import type { Logger } from "./log.js";
import { serviceTransport } from "./rpc/client.js";
import { startRpcServer } from "./rpc/server.js";
import { databaseState } from "./runtime.js";

/** Records an event to publish when the surrounding transaction commits. */
export type Emit = (event: DomainEvent) => void;

/** What a service's handlers and consumers get to work with. */
export interface ServiceContext {
  name: string;
  schema: string;
  db: Database;
  bus: EventBus;
  logger: Logger;
  internalToken: string;
  /** Transport to another service, by name ("crm", "fieldops"...). */
  peer(name: string): Transport;
  /**
   * Runs fn in one transaction. Events it emits are written to the outbox in that same
   * transaction, so they are published if and only if the change is committed.
   */
  write<T>(fn: (tx: Queryable, emit: Emit) => Promise<T>): Promise<T>;
}

/** A service: one folder under services/, one of these exported from its index. */
export interface ServiceModule {
  name: string;
  /** The PostgreSQL schema it owns. */
  schema: string;
  migrationsDir: string;
  /** gRPC port when run alone. */
  defaultPort: number;
  routes(context: ServiceContext): (router: ConnectRouter) => void;
  consumers?(context: ServiceContext): AnyEventConsumer[];
}

/** Where the other services are: a base URL per service name. */
export class PeerRegistry {
  private readonly urls = new Map<string, string>();
  private readonly transports = new Map<string, Transport>();

  set(name: string, url: string): void {
    this.urls.set(name, url);
    this.transports.delete(name);
  }

  url(name: string): string | undefined {
    return this.urls.get(name);
  }

  names(): string[] {
    return [...this.urls.keys()];
  }

  transport(name: string): Transport {
    let transport = this.transports.get(name);
    if (!transport) {
      const url = this.urls.get(name);
      if (!url) throw new Error(`no address known for service ${name}`);
      transport = serviceTransport(url);
      this.transports.set(name, transport);
    }
    return transport;
  }
}

export interface ServiceRuntime {
  db: Database;
  bus: EventBus;
  logger: Logger;
  internalToken: string;
  host: string;
  port: number;
  peers: PeerRegistry;
}

export interface RunningService {
  name: string;
  url: string;
  relay: OutboxRelay;
  stop(): Promise<void>;
}

export async function startService(module: ServiceModule, runtime: ServiceRuntime): Promise<RunningService> {
  const logger = runtime.logger.child({ service: module.name });
  const { db, bus } = runtime;
  await migrate(db, module.schema, readMigrations(module.migrationsDir));
  const relay = new OutboxRelay({ db, bus, schema: module.schema, logger });
  const context: ServiceContext = {
    name: module.name,
    schema: module.schema,
    db,
    bus,
    logger,
    internalToken: runtime.internalToken,
    peer: (name) => runtime.peers.transport(name),
    async write(fn) {
      const events: DomainEvent[] = [];
      const result = await db.transaction(async (tx) => {
        const value = await fn(tx, (event) => events.push(event));
        await enqueueEvents(tx, module.schema, events);
        return value;
      });
      if (events.length > 0) relay.nudge();
      return result;
    },
  };
  const subscriptions: Subscription[] = [];
  for (const consumer of module.consumers?.(context) ?? []) {
    subscriptions.push(await startConsumer({ bus, db, schema: module.schema, logger, onEmitted: () => relay.nudge() }, consumer));
  }
  const server = await startRpcServer({
    name: module.name,
    host: runtime.host,
    port: runtime.port,
    internalToken: runtime.internalToken,
    logger,
    routes: module.routes(context),
    health: async () => ({ database: await databaseState(db), bus: bus.healthy() ? "ok" : "down" }),
  });
  runtime.peers.set(module.name, server.url);
  relay.start();
  return {
    name: module.name,
    url: server.url,
    relay,
    async stop() {
      await server.close();
      for (const subscription of subscriptions) await subscription.stop();
      await relay.stop();
    },
  };
}
