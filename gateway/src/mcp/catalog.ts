import { ErrorCode, McpError, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { AgentToolArgumentsSchema } from "@voiceops/proto/voiceops/mcp/v1/agent_tools_pb";
import type { Principal } from "../identity/store.js";
import { writeMessage } from "../transcoder/json-codec.js";
import { decodeArguments } from "./arguments.js";
import { ToolContext, type McpDeps } from "./context.js";
import { failureResult, ToolFailure } from "./errors.js";
import { toolIdempotency } from "./idempotency.js";
import { structuredResult } from "./tool-result.js";
import { param, ToolSchemas } from "./schemas.js";
import type { AgentTool } from "./tool.js";
import { addToDoNotCall, checkDoNotCall, lookupCaller, saveCallerMemory } from "./tools/callers.js";
import { createLead, saveContact, searchContacts } from "./tools/contacts.js";
import {
  createServiceRequest,
  dispatchTechnician,
  flagEmergency,
  getOnCallTechnician,
  getServiceRequest,
} from "./tools/jobs.js";
import {
  bookAppointment,
  cancelAppointment,
  findSlots,
  holdSlot,
  listAppointmentTypes,
  rescheduleAppointment,
} from "./tools/scheduling.js";
import { getBusinessHours, searchKnowledgeBase } from "./tools/business.js";

/** Every agent tool, in the order tools/list gives them (a call's order: who, what, when). */
const AGENT_TOOLS: AgentTool[] = [
  lookupCaller,
  searchContacts,
  saveContact,
  createServiceRequest,
  getServiceRequest,
  flagEmergency,
  getOnCallTechnician,
  dispatchTechnician,
  findSlots,
  holdSlot,
  bookAppointment,
  rescheduleAppointment,
  cancelAppointment,
  listAppointmentTypes,
  searchKnowledgeBase,
  getBusinessHours,
  saveCallerMemory,
  checkDoNotCall,
  addToDoNotCall,
  createLead,
];

const idempotencyKey = param(AgentToolArgumentsSchema, "idempotency_key");

/** A tool with the arguments it is called with: write tools also take an idempotency_key. */
function withCommonParams(tool: AgentTool): AgentTool {
  return tool.kind === "write" ? { ...tool, params: [...tool.params, idempotencyKey] } : tool;
}

/** The tools, their tools/list entries (schemas derived once), and how one is called. */
export class ToolCatalog {
  private readonly tools = new Map<string, AgentTool>();
  readonly list: Tool[];

  constructor(private readonly deps: McpDeps) {
    const schemas = new ToolSchemas();
    this.list = AGENT_TOOLS.map((declared) => {
      const tool = withCommonParams(declared);
      this.tools.set(tool.name, tool);
      return {
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: schemas.input(tool.params) as Tool["inputSchema"],
        outputSchema: schemas.output(tool.output) as Tool["outputSchema"],
        annotations: {
          title: tool.title,
          readOnlyHint: tool.kind === "read",
          destructiveHint: tool.kind === "write" && tool.destructive === true,
          idempotentHint: tool.kind === "read" || tool.idempotent === true,
          openWorldHint: false,
        },
      };
    });
  }

  /** Whether a tool of this name is listed. */
  has(name: string): boolean {
    return this.tools.has(name);
  }

  /** Runs a tool for an authenticated client: a result, or an isError result saying what was wrong. */
  async call(
    name: string,
    args: Record<string, unknown>,
    principal: Principal,
    requestId: string,
  ): Promise<CallToolResult> {
    const tool = this.tools.get(name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    try {
      const { values, errors } = decodeArguments(tool.params, args, principal.country);
      const idempotency = tool.kind === "write" && errors.length === 0 ? toolIdempotency(tool.name, args) : undefined;
      const ctx = new ToolContext(this.deps, principal, requestId, tool.name, tool.params, idempotency);
      // Every read tool call is recorded, one with bad arguments too.
      if (tool.kind === "read") this.deps.lookups.record(principal, requestId, tool.name, this.deps.clock.now());
      if (errors.length > 0) throw new ToolFailure(422, errors);
      const structured = writeMessage(tool.output, await tool.run(ctx, values)) as Record<string, unknown>;
      return structuredResult(structured, ctx.replayed ? { "voiceops/idempotent-replayed": true } : undefined);
    } catch (error) {
      if (error instanceof ToolFailure) return failureResult(error);
      this.deps.logger.error({ err: error, requestId, tool: name }, "agent tool failed");
      return failureResult(new ToolFailure(500, "Internal server error"));
    }
  }
}
