import { ActivityType, CommsService } from "@voiceops/proto/voiceops/comms/v1/comms_service_pb";
import type { ToolContext } from "./context.js";

/**
 * Records a read tool's call as a LOOKUP activity (the reference's "read-tool calls", hidden
 * from listings unless lookups=true), with the tool's name in metadata.tool. It runs beside the
 * tool, so the caller never waits for it; a record that fails is logged, never dropped silently.
 */
export function recordLookup(ctx: ToolContext): void {
  ctx
    .call(CommsService.method.createActivity, { activityType: ActivityType.LOOKUP, description: `Agent tool ${ctx.tool}`, metadata: { tool: ctx.tool } })
    .catch((error: unknown) => {
      ctx.deps.logger.warn({ err: error, requestId: ctx.requestId, orgId: ctx.principal.orgId, tool: ctx.tool }, "LOOKUP activity of an agent tool call not recorded");
    });
}
