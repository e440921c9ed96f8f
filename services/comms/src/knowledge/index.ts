import type { ConnectRouter, ServiceImpl } from "@connectrpc/connect";
import type { AnyEventConsumer, EventConsumer, ServiceContext, Subscription } from "@voiceops/platform";
import { KnowledgeSourceCreatedSchema } from "@voiceops/proto/voiceops/comms/v1/knowledge_events_pb";
import { KnowledgeService } from "@voiceops/proto/voiceops/comms/v1/knowledge_service_pb";
import { knowledgeHandlers } from "../handlers/knowledge.js";
import { KnowledgeSourceStore } from "../store/knowledge-sources.js";
import { readKnowledgeConfig } from "./config.js";
import { IngestionWorker } from "./ingest.js";

/** The knowledge base inside comms: its RPCs, the consumer of its own events, and the ingestion worker. */
class KnowledgeBase {
  readonly store = new KnowledgeSourceStore();
  readonly config;
  readonly worker;

  constructor(readonly context: ServiceContext) {
    this.config = readKnowledgeConfig(context.env);
    this.worker = new IngestionWorker(context, this.store, this.config);
  }

  routes(router: ConnectRouter): void {
    const handlers: ServiceImpl<typeof KnowledgeService> = knowledgeHandlers(this.context, this.store, this.config);
    router.service(KnowledgeService, handlers);
  }

  consumers(): AnyEventConsumer[] {
    const ingest: EventConsumer<typeof KnowledgeSourceCreatedSchema> = {
      durable: "comms-knowledge-ingest",
      subject: "comms.knowledge_source.created",
      schema: KnowledgeSourceCreatedSchema,
      // The source row is the durable record of the work; the event hands it to a worker now.
      handle: async (event) => this.worker.wake(event.payload.source?.id),
    };
    return [ingest];
  }

  /** Starts the ingestion worker; stopping the subscription stops it. */
  background(): Subscription {
    this.worker.start();
    return this.worker;
  }
}

const instances = new WeakMap<ServiceContext, KnowledgeBase>();

/** The knowledge base of one running comms service (one per service context). */
export function knowledgeBase(context: ServiceContext): KnowledgeBase {
  let instance = instances.get(context);
  if (!instance) {
    instance = new KnowledgeBase(context);
    instances.set(context, instance);
  }
  return instance;
}
