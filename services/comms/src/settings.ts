import { envInt, envOptional } from "@voiceops/platform";

/** The comms service's own settings, read and checked when it starts. */
export interface CommsSettings {
  /** The voice runtime's key (INTERNAL_API_KEY); unset refuses every x-internal-key. */
  internalApiKey: string | undefined;
  /** Lifetime of a signed recording URL (RECORDING_URL_TTL_SECONDS). */
  recordingUrlTtlSeconds: number;
}

export function readCommsSettings(env: Record<string, string | undefined>): CommsSettings {
  return {
    internalApiKey: envOptional("INTERNAL_API_KEY", env),
    recordingUrlTtlSeconds: envInt("RECORDING_URL_TTL_SECONDS", 900, { min: 1, max: 7 * 24 * 3600 }, env),
  };
}
