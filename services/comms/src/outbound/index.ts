import type { ConnectRouter, ServiceImpl } from "@connectrpc/connect";
import { envInt, type AnyEventConsumer, type ServiceContext, type Subscription } from "@voiceops/platform";
import { OutboundCallsService, OutboundService } from "@voiceops/proto/voiceops/comms/v1/outbound_service_pb";
import { callRequestHandlers } from "../handlers/call-requests.js";
import { campaignHandlers } from "../handlers/campaigns.js";
import { claimHandlers } from "../handlers/claims.js";
import { crmLookup } from "../peers.js";
import { dncHandlers } from "../handlers/dnc.js";
import { CallRequestStore } from "../store/call-requests.js";
import { CampaignStore } from "../store/campaigns.js";
import { DncStore } from "../store/dnc.js";
import { OutboundEngine } from "./engine.js";
import { callResultConsumer } from "./results.js";
import { OutboundScheduler } from "./scheduler.js";

/** Outbound calling as wired into one running comms service: engine, scheduler, routes. */
class Outbound {
  readonly engine: OutboundEngine;
  readonly scheduler: OutboundScheduler;

  constructor(readonly context: ServiceContext) {
    this.engine = new OutboundEngine(context, {
      dnc: new DncStore(),
      campaigns: new CampaignStore(),
      requests: new CallRequestStore(),
    });
    const intervalMs = envInt("OUTBOUND_SCHEDULER_INTERVAL_MS", 1000, { min: 10, max: 600_000 }, context.env);
    this.scheduler = new OutboundScheduler(
      this.engine,
      context.logger.child({ task: "outbound-scheduler" }),
      intervalMs,
    );
  }

  routes(router: ConnectRouter): void {
    const { context, engine } = this;
    const crm = crmLookup(context);
    const nudge = () => this.scheduler.nudge();
    // Every RPC of the service: a forgotten handler is a compile error.
    const handlers: ServiceImpl<typeof OutboundService> = {
      ...campaignHandlers(context, engine, crm, nudge),
      ...callRequestHandlers(context, engine, crm),
      ...dncHandlers(context, engine),
    };
    const calls: ServiceImpl<typeof OutboundCallsService> = claimHandlers(context, engine);
    router.service(OutboundService, handlers);
    router.service(OutboundCallsService, calls);
  }

  consumers(): AnyEventConsumer[] {
    return [callResultConsumer(this.engine, () => this.scheduler.nudge())];
  }

  /** Starts the scheduler once the service serves; stopping the subscription stops it. */
  startScheduler(): Subscription {
    this.scheduler.start();
    return { stop: () => this.scheduler.stop() };
  }
}

// routes(), consumers() and background() of a service module are called with the same context; they
// share one engine and scheduler per running service.
const instances = new WeakMap<ServiceContext, Outbound>();

export function outbound(context: ServiceContext): Outbound {
  let instance = instances.get(context);
  if (!instance) {
    instance = new Outbound(context);
    instances.set(context, instance);
  }
  return instance;
}
