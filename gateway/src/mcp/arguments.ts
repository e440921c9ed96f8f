import type { DescMessage } from "@bufbuild/protobuf";
import { required } from "@voiceops/platform";
import { fastApiEntry, type ValidationEntry } from "../errors/index.js";
import { decodeRequest } from "../transcoder/request.js";
import type { Route } from "../transcoder/routes.js";
import { isRequired, type ToolParam } from "./schemas.js";

type AnyMessage = Record<string, unknown>;

/** A tool's arguments, read into the request messages their fields come from. */
export class ToolArguments {
  constructor(
    private readonly messages: Map<DescMessage, AnyMessage>,
    private readonly given: ReadonlySet<string>,
  ) {}

  /** The decoded message of `schema` (with its declared defaults); the fields not taken as arguments are unset. */
  of(schema: DescMessage): AnyMessage {
    const message = this.messages.get(schema);
    if (!message) throw new Error(`the tool takes no argument from ${schema.typeName}`);
    return message;
  }

  /** Whether the caller gave the argument (null counts as not given). */
  has(name: string): boolean {
    return this.given.has(name);
  }
}

/** A request with body "*" over `message`: the REST decoding of a JSON body, reused for arguments. */
function bodyRoute(message: DescMessage): Route {
  return {
    body: "*",
    method: { input: message },
    pathFields: [],
    queryFields: [],
    headerFields: [],
    template: "/mcp",
  } as unknown as Route;
}

/** How a tool's arguments are decoded: its params grouped by the request message they come from. */
interface DecodePlan {
  messages: { message: DescMessage; route: Route; taken: ToolParam[] }[];
  order: Map<string, number>;
}

/** Each tool's plan, made at its first call (a tool's params never change). */
const plans = new WeakMap<ToolParam[], DecodePlan>();

function planOf(params: ToolParam[]): DecodePlan {
  let plan = plans.get(params);
  if (plan) return plan;
  const byMessage = new Map<DescMessage, ToolParam[]>();
  for (const p of params) {
    const list = byMessage.get(p.field.parent) ?? [];
    list.push(p);
    byMessage.set(p.field.parent, list);
  }
  plan = {
    messages: [...byMessage].map(([message, taken]) => ({ message, route: bodyRoute(message), taken })),
    order: new Map(params.map((p, index) => [p.name, index])),
  };
  plans.set(params, plan);
  return plan;
}

/**
 * Decodes a tool's arguments as the REST API decodes a JSON body: each request message the
 * arguments come from is read, defaulted and validated by request.ts, and its validation
 * entries are renamed to the arguments (loc is the argument's path). Fields of those messages
 * that the tool does not take as arguments are the tool's to fill, and never reported.
 */
export function decodeArguments(
  params: ToolParam[],
  args: Record<string, unknown>,
  country: string,
): { values: ToolArguments; errors: ValidationEntry[] } {
  const plan = planOf(params);
  const messages = new Map<DescMessage, AnyMessage>();
  const errors: ValidationEntry[] = [];
  const given = new Set<string>();
  for (const p of params) if (args[p.name] !== undefined && args[p.name] !== null) given.add(p.name);
  for (const { message, route, taken } of plan.messages) {
    const body: Record<string, unknown> = {};
    for (const p of taken) if (args[p.name] !== undefined) body[p.field.name] = args[p.name];
    const decoded = decodeRequest(route, { params: {}, query: {}, body, headers: {}, country });
    messages.set(message, decoded.message);
    for (const entry of decoded.errors) {
      const [, fieldName, ...rest] = entry.loc;
      const p = taken.find((t) => t.field.name === fieldName);
      // A field the tool fills itself, or a required one the tool makes optional.
      if (!p || (entry.type === "missing" && !isRequired(p))) continue;
      errors.push({ ...entry, loc: [p.name, ...rest] });
    }
  }
  for (const p of params) {
    if (p.required === true && !fieldRequiredByRules(p) && !given.has(p.name))
      errors.push(fastApiEntry([p.name], required(p.name)));
  }
  if (errors.length > 1)
    errors.sort((a, b) => (plan.order.get(String(a.loc[0])) ?? -1) - (plan.order.get(String(b.loc[0])) ?? -1));
  return { values: new ToolArguments(messages, given), errors };
}

function fieldRequiredByRules(p: ToolParam): boolean {
  return isRequired({ ...p, required: undefined });
}
