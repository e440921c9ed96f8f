import type { DescMessage } from "@bufbuild/protobuf";
import type { ToolArguments } from "./arguments.js";
import type { ToolContext } from "./context.js";
import type { ToolParam } from "./schemas.js";

type AnyMessage = Record<string, unknown>;

/** One agent tool: a curated call (or a few) of the services' RPCs. */
export interface AgentTool {
  name: string;
  title: string;
  /** Written for a model: when to use the tool and what it answers. */
  description: string;
  /**
   * read: changes nothing and is recorded as a LOOKUP activity; write: changes data and takes
   * an optional idempotency_key.
   */
  kind: "read" | "write";
  /** A write that removes or ends something (MCP's destructiveHint). */
  destructive?: boolean;
  /** Calling again with the same arguments changes nothing more (MCP's idempotentHint). */
  idempotent?: boolean;
  params: ToolParam[];
  /** The message the result is, written as the REST API writes it. */
  output: DescMessage;
  /** Runs the tool on valid arguments; fails with a ToolFailure. */
  run(ctx: ToolContext, args: ToolArguments): Promise<AnyMessage>;
}

/** Declares a tool (typed in one place). */
export function defineTool(tool: AgentTool): AgentTool {
  return tool;
}
