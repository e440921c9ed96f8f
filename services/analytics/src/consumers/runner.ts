import {
  handlerOf,
  startConsumer,
  type Queryable,
  type ServiceContext,
  type StreamConsumer,
  type Subscription,
  type TypedHandler,
} from "@voiceops/platform";
import { currentGeneration, fenceGeneration, REBUILD_SUBJECT, StaleGeneration } from "../store/generation.js";

const GENERATION_POLL_MS = 5_000;

/** The durable name of a consumer in a generation (the first generation keeps the plain name). */
function durableOf(consumer: StreamConsumer, generation: number): string {
  return generation === 0 ? consumer.durable : `${consumer.durable}-g${generation}`;
}

/**
 * A consumer whose every event first checks that its generation is still the current one; the
 * check holds the generation until the transaction ends, so a transaction applying several
 * events checks once.
 */
function fenced(consumer: StreamConsumer, generation: number): StreamConsumer {
  const checked = new WeakSet<Queryable>();
  const handlers = wrapHandlers(consumer, async (tx, apply) => {
    if (!checked.has(tx)) {
      await fenceGeneration(tx, generation);
      checked.add(tx);
    }
    await apply();
  });
  return { durable: durableOf(consumer, generation), subject: consumer.subject, handlers };
}

/** The consumer's handlers, each application of one (`handle` or `handleAll`) run by `around`. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function wrapHandlers(
  consumer: StreamConsumer,
  around: (tx: Queryable, apply: () => Promise<void>) => Promise<void>,
): Record<string, TypedHandler<any>> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const handlers: Record<string, TypedHandler<any>> = {};
  for (const [type, handler] of Object.entries(consumer.handlers)) {
    const { handleAll } = handler;
    handlers[type] = handlerOf(
      handler.schema,
      (event, tx, emit) => around(tx, () => handler.handle(event, tx, emit)),
      handleAll && ((events, tx, emit) => around(tx, () => handleAll.call(handler, events, tx, emit))),
    );
  }
  return handlers;
}

/**
 * Runs the read models' consumers in the current generation. When a rebuild starts a new one
 * (announced by broadcast, or found by a consumer's fence), it stops them and starts them again
 * under new durable names, which replay the retained streams from the start.
 */
export async function runConsumers(context: ServiceContext, consumers: StreamConsumer[]): Promise<Subscription> {
  const { bus, db, schema, logger } = context;
  let running: { generation: number; subscriptions: Subscription[] } | undefined;
  let switching: Promise<void> = Promise.resolve();
  let stopped = false;

  async function start(generation: number): Promise<void> {
    if (stopped || running?.generation === generation) return;
    for (const subscription of running?.subscriptions ?? []) await subscription.stop();
    const subscriptions: Subscription[] = [];
    for (const consumer of consumers) {
      const deps = { bus, db, schema, logger, onEmitted: () => undefined };
      subscriptions.push(await startConsumer(deps, withRestart(fenced(consumer, generation))));
    }
    running = { generation, subscriptions };
    logger.info({ generation }, "analytics consumers running");
  }

  /** Switches generation one at a time, in order. */
  function switchTo(generation: number): Promise<void> {
    switching = switching
      .then(() => start(generation))
      .catch((error: unknown) => logger.error({ err: error }, "analytics consumers did not restart"));
    return switching;
  }

  function withRestart(consumer: StreamConsumer): StreamConsumer {
    const handlers = wrapHandlers(consumer, async (_tx, apply) => {
      try {
        await apply();
      } catch (error) {
        // A missed broadcast: the fence found the newer generation.
        if (error instanceof StaleGeneration) void switchTo(error.current);
        throw error;
      }
    });
    return { ...consumer, handlers };
  }

  const check = () => void currentGeneration(db).then(switchTo, () => undefined);
  const announcements = bus.onBroadcast(REBUILD_SUBJECT, check);
  // A replica that missed the announcement finds the new generation within a few seconds.
  const poll = setInterval(check, GENERATION_POLL_MS);
  poll.unref();
  await switchTo(await currentGeneration(db));
  return {
    async stop() {
      stopped = true;
      clearInterval(poll);
      await announcements.stop();
      await switching;
      for (const subscription of running?.subscriptions ?? []) await subscription.stop();
    },
  };
}
