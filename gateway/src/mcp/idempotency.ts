import { parseIdempotencyKey, toolCallFingerprint } from "@voiceops/platform";
import { refusal } from "../errors/index.js";
import { ToolFailure } from "./errors.js";

/** A write tool call made under a client's idempotency key. */
export interface ToolIdempotency {
  key: string;
  /** The tool's name and its other arguments (toolCallFingerprint): what the key is bound to. */
  fingerprint: string;
}

/**
 * The idempotency of a write tool call, from its `idempotency_key` argument (already checked
 * for type and length by its proto rules), or undefined without one. The key means what the
 * REST API's Idempotency-Key header means (services/platform/src/idempotency): the tool's RPC
 * calls carry it, each writing call under a key of its own derived in call order, so a retry
 * with the same arguments is answered from the kept answers and runs nothing twice.
 */
export function toolIdempotency(tool: string, args: Record<string, unknown>): ToolIdempotency | undefined {
  const raw = args.idempotency_key;
  if (raw === undefined || raw === null) return undefined;
  const key = parseIdempotencyKey(String(raw));
  if (key === undefined)
    throw new ToolFailure(422, [
      refusal(["idempotency_key"], "An idempotency key is 1 to 255 visible ASCII characters (no spaces)"),
    ]);
  const { idempotency_key: _key, ...rest } = args;
  return { key, fingerprint: toolCallFingerprint(tool, rest) };
}
