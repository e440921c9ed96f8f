import type { Role } from "@voiceops/platform";
import type { ApiKeyRecord, IdentityStore } from "../identity/store.js";
import type { User } from "../identity/users.js";

/** A user as the API shows it. */
export function publicUser(user: User) {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    created_at: user.created_at,
    last_sign_in_at: user.last_sign_in_at,
  };
}

/** An API key as the API lists it: the admin API's shape, never the secret. */
export function publicKey(key: ApiKeyRecord) {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    role: key.role,
    expires_at: key.expires_at,
    revoked_at: key.revoked_at,
    created_at: key.created_at,
  };
}

/** The set-up link of a user's token. */
export function setupUrl(publicUrl: string, token: string): string {
  return `${publicUrl.replace(/\/+$/, "")}/app/setup#token=${encodeURIComponent(token)}`;
}

/** Who is calling (GET /api/me, and the answer of a sign-in): the user (null for a key), organization, role and CSRF token. */
export async function meBody(
  store: IdentityStore,
  orgId: string,
  role: Role,
  user: User | undefined,
  csrfToken: string | null,
) {
  const org = await store.getOrganization(orgId);
  return {
    user: user ? publicUser(user) : null,
    organization: org
      ? { id: org.id, name: org.name, timezone: org.timezone, default_country: org.default_country }
      : null,
    role,
    csrf_token: csrfToken,
  };
}
