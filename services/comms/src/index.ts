import { fileURLToPath } from "node:url";
import type { ServiceImpl } from "@connectrpc/connect";
import type { ServiceModule } from "@voiceops/platform";
import { CommsService } from "@voiceops/proto/voiceops/comms/v1/comms_service_pb";
import { commsConsumers } from "./consumers.js";
import { activityHandlers } from "./handlers/activities.js";
import { callHandlers } from "./handlers/calls.js";
import { conversationHandlers } from "./handlers/conversations.js";
import { messageHandlers } from "./handlers/messages.js";
import { Recordings } from "./calls/recordings.js";
import { referenceChecker } from "./peers.js";
import { outbound } from "./outbound/index.js";
import { knowledgeBase } from "./knowledge/index.js";
import { readCommsSettings } from "./settings.js";
import { ActivityStore } from "./store/activities.js";
import { CallStore } from "./store/calls.js";
import { ContactCopies } from "./store/contacts.js";
import { ConversationStore } from "./store/conversations.js";
import { MessageStore } from "./store/messages.js";

const activities = new ActivityStore();
const contacts = new ContactCopies();

/**
 * The comms service: the activity log with the calls and messages read from it, recordings,
 * conversations and caller memory; outbound calling (campaigns, one-off calls, the do-not-call
 * list) with its scheduler; the knowledge base with its ingestion worker.
 */
export const commsService: ServiceModule = {
  name: "comms",
  schema: "comms",
  migrationsDir: fileURLToPath(new URL("../migrations", import.meta.url)),
  routes(context) {
    const settings = readCommsSettings(context.env);
    const checkReferences = referenceChecker(context);
    // Every RPC of the service: a forgotten handler is a compile error.
    const handlers: ServiceImpl<typeof CommsService> = {
      ...activityHandlers(context, { settings, activities, contacts, checkReferences }),
      ...callHandlers(context, {
        calls: new CallStore(),
        recordings: new Recordings({
          objects: context.objects,
          logger: context.logger,
          ttlSeconds: settings.recordingUrlTtlSeconds,
        }),
      }),
      ...messageHandlers(context, new MessageStore()),
      ...conversationHandlers(context, new ConversationStore()),
    };
    return (router) => {
      router.service(CommsService, handlers);
      outbound(context).routes(router);
      knowledgeBase(context).routes(router);
    };
  },
  consumers: (context) => [
    ...commsConsumers(activities, contacts),
    ...outbound(context).consumers(),
    ...knowledgeBase(context).consumers(),
  ],
  background: async (context) => {
    const scheduler = await outbound(context).startScheduler();
    const ingestion = await knowledgeBase(context).background();
    return {
      async stop() {
        await scheduler.stop();
        await ingestion.stop();
      },
    };
  },
};
