// An example of a voice agent's call flow through the MCP tools (the gateway's /mcp), as an LLM
// runtime would make it on a live call, with the official MCP SDK's client: look up the caller,
// find and hold a slot, book it, and save what to remember about the caller. A real agent lets
// the model choose the tools and their arguments; here the choices are scripted.
//
//   MCP_URL=http://127.0.0.1:8080/mcp API_KEY=vo_… CALLER="(555) 010-2000" npx tsx examples/voice-agent-call.ts
//
// Optional: CALLER_NAME (the name the caller gives when unknown, default "Jordan Example"),
// APPOINTMENT_TYPE (a name; default the first type listed). The organization needs an
// appointment type (POST /api/scheduling/types) and open business hours ahead. It prints one
// JSON line per step, and exits 1 with the tool's error when a step fails.

import { randomUUID } from "node:crypto";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

export interface CallFlowOptions {
  /** The MCP endpoint, e.g. http://127.0.0.1:8080/mcp. */
  url: string;
  apiKey: string;
  /** The caller's number, as the phone line gives it. */
  caller: string;
  callerName?: string;
  appointmentType?: string;
  /** Where each step is reported. */
  log?: (step: string, detail: Record<string, unknown>) => void;
}

export interface CallFlowOutcome {
  contactId: string;
  appointmentId: string;
  start: string;
  summary: string;
}

type Json = Record<string, any>;

/** A tool's structured result; an isError result (whose text says what was wrong) is thrown. */
async function use(client: Client, name: string, args: Json): Promise<Json> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) {
    const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
    throw new Error(`${name} failed: ${text}`);
  }
  return result.structuredContent as Json;
}

/** One inbound call, from "who is this" to "goodbye". */
export async function runCallFlow(options: CallFlowOptions): Promise<CallFlowOutcome> {
  const log = options.log ?? (() => undefined);
  const client = new Client({ name: "example-voice-agent", version: "1.0.0" });
  // The key as a bearer token; X-API-Key works as well.
  await client.connect(
    new StreamableHTTPClientTransport(new URL(options.url), {
      requestInit: { headers: { authorization: `Bearer ${options.apiKey}` } },
    }),
  );
  try {
    // 1. Who is calling, what do we know, anything open, may we call them back?
    const caller = await use(client, "lookup_caller", { phone_number: options.caller });
    log("lookup_caller", {
      known: caller.contact !== null,
      memory: caller.memory.summary,
      open_requests: caller.open_service_requests.length,
      do_not_call: caller.do_not_call.blocked,
    });

    // 2. A new caller gives their name; keep it. Writes carry an idempotency key, so a retry
    //    after a time-out (same key, same arguments) never does the work twice.
    let contact = caller.contact;
    if (!contact) {
      contact = await use(client, "save_contact", {
        phone_number: caller.phone_number,
        name: options.callerName ?? "Jordan Example",
        idempotency_key: randomUUID(),
      });
      log("save_contact", { contact_id: contact.id, name: contact.name });
    }

    // 3. What can be booked, and when.
    const { items: types } = await use(client, "list_appointment_types", {});
    const wanted = options.appointmentType?.toLowerCase();
    const type = wanted ? types.find((t: Json) => t.name.toLowerCase() === wanted) : types[0];
    if (!type)
      throw new Error(
        wanted
          ? `no appointment type named ${options.appointmentType}`
          : "no appointment type: create one with POST /api/scheduling/types",
      );
    const { slots, timezone } = await use(client, "find_slots", { appointment_type_id: type.id });
    if (slots.length === 0) throw new Error(`no open slot of ${type.name} in the next 7 days`);
    log("find_slots", { appointment_type: type.name, timezone, offered: slots.slice(0, 3).map((s: Json) => s.start) });

    // 4. The caller picks the first slot offered: hold it while they confirm, then book it.
    const hold = await use(client, "hold_slot", {
      appointment_type_id: type.id,
      start: slots[0].start,
      idempotency_key: randomUUID(),
    });
    log("hold_slot", { hold_id: hold.id, expires_at: hold.expires_at });
    const appointment = await use(client, "book_appointment", {
      hold_id: hold.id,
      appointment_type_id: type.id,
      contact_id: contact.id,
      idempotency_key: randomUUID(),
    });
    log("book_appointment", {
      appointment_id: appointment.id,
      start_at: appointment.start_at,
      status: appointment.status,
    });

    // 5. Before hanging up: what to remember next time.
    const summary =
      `${contact.name ?? "Caller"} booked ${type.name} for ${slots[0].start}.${caller.memory.summary ? ` Earlier: ${caller.memory.summary}` : ""}`.slice(
        0,
        5000,
      );
    const memory = await use(client, "save_caller_memory", {
      phone_number: caller.phone_number,
      summary,
      idempotency_key: randomUUID(),
    });
    log("save_caller_memory", { summary: memory.summary });

    return {
      contactId: contact.id,
      appointmentId: appointment.id,
      start: appointment.start_at,
      summary: memory.summary,
    };
  } finally {
    await client.close();
  }
}

function setting(name: string, fallback?: string): string {
  const value = process.env[name] ?? fallback;
  if (!value) {
    process.stderr.write(`missing setting ${name}\n`);
    process.exit(2);
  }
  return value;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  runCallFlow({
    url: setting("MCP_URL", "http://127.0.0.1:8080/mcp"),
    apiKey: setting("API_KEY"),
    caller: setting("CALLER"),
    callerName: process.env.CALLER_NAME,
    appointmentType: process.env.APPOINTMENT_TYPE,
    log: (step, detail) => process.stdout.write(`${JSON.stringify({ step, ...detail })}\n`),
  }).then(
    (outcome) => process.stdout.write(`${JSON.stringify({ step: "done", ...outcome })}\n`),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
