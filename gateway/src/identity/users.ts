import { createHash } from "node:crypto";
import {
  hashSecret,
  newId,
  newSecret,
  PgErrorCode,
  pgErrorCode,
  type Database,
  type Role,
  type WeeklyHours,
} from "@voiceops/platform";
import type { Principal } from "./store.js";

// Dashboard users, their set-up links and sessions (CONTRACT.md "Users, sign-in and the dashboard").

export interface User {
  id: string;
  org_id: string;
  email: string;
  name: string | null;
  role: Role;
  created_at: string;
  last_sign_in_at: string | null;
}

interface UserRow {
  id: string;
  org_id: string;
  email: string;
  name: string | null;
  role: Role;
  created_at: Date;
  last_sign_in_at: Date | null;
}

const USER_COLUMNS = "id, org_id, email, name, role, created_at, last_sign_in_at";

function toUser(row: UserRow): User {
  return {
    id: row.id,
    org_id: row.org_id,
    email: row.email,
    name: row.name,
    role: row.role,
    created_at: row.created_at.toISOString(),
    last_sign_in_at: row.last_sign_in_at ? row.last_sign_in_at.toISOString() : null,
  };
}

/** Session lifetimes: idle and absolute. */
const SESSION_IDLE_SECONDS = 12 * 3600;
export const SESSION_ABSOLUTE_SECONDS = 7 * 24 * 3600;
const SETUP_LINK_SECONDS = 72 * 3600;
/** Failed sign-ins allowed per address and per email within the window. */
export const SIGN_IN_FAILURE_LIMIT = 10;
const SIGN_IN_FAILURE_WINDOW_SECONDS = 15 * 60;

const SESSION_PREFIX = "vs_";
const SETUP_PREFIX = "su_";

/** The CSRF token of a session: derived from its secret cookie, so a page without the cookie cannot make it. */
export function csrfTokenOf(sessionToken: string): string {
  return createHash("sha256").update(`csrf\u0000${sessionToken}`).digest("base64url");
}

export class EmailTaken extends Error {}

/** A session's principal: the user's organization and role, as an API key's. */
interface SessionPrincipal extends Principal {
  userId: string;
  sessionId: string;
}

export class UserStore {
  constructor(private readonly db: Database) {}

  /** Creates a user with a set-up link's token (shown once). Throws EmailTaken. */
  async createUser(
    orgId: string,
    input: { email: string; name: string | null; role: Role },
  ): Promise<{ user: User; setupToken: string; setupExpiresAt: string }> {
    try {
      return await this.db.transaction(async (tx) => {
        const created = await tx.query<UserRow>(
          `INSERT INTO identity.users (id, org_id, email, name, role) VALUES ($1, $2, $3, $4, $5) RETURNING ${USER_COLUMNS}`,
          [newId(), orgId, input.email, input.name, input.role],
        );
        const user = toUser(created.rows[0] as UserRow);
        const { secret, hash } = newSecret(SETUP_PREFIX);
        const token = await tx.query<{ expires_at: Date }>(
          `INSERT INTO identity.setup_tokens (token_hash, user_id, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3::float8)) RETURNING expires_at`,
          [hash, user.id, SETUP_LINK_SECONDS],
        );
        return {
          user,
          setupToken: secret,
          setupExpiresAt: (token.rows[0] as { expires_at: Date }).expires_at.toISOString(),
        };
      });
    } catch (error) {
      if (pgErrorCode(error) === PgErrorCode.uniqueViolation) throw new EmailTaken(input.email);
      throw error;
    }
  }

  async listUsers(orgId: string): Promise<User[]> {
    const result = await this.db.query<UserRow>(
      `SELECT ${USER_COLUMNS} FROM identity.users WHERE org_id = $1 ORDER BY created_at, id`,
      [orgId],
    );
    return result.rows.map(toUser);
  }

  async getUser(id: string): Promise<User | undefined> {
    const result = await this.db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM identity.users WHERE id = $1`, [id]);
    return result.rows[0] ? toUser(result.rows[0]) : undefined;
  }

  /** Deletes a user (of `orgId` when given) and so all their sessions; false when there is none. */
  async deleteUser(id: string, orgId?: string): Promise<boolean> {
    const result = await this.db.query(
      `DELETE FROM identity.users WHERE id = $1 AND ($2::uuid IS NULL OR org_id = $2)`,
      [id, orgId ?? null],
    );
    return result.rowCount > 0;
  }

  /** The user and stored password hash of an email, for sign-in. */
  async credentialsOf(email: string): Promise<{ user: User; passwordHash: string | null } | undefined> {
    const result = await this.db.query<UserRow & { password_hash: string | null }>(
      `SELECT ${USER_COLUMNS}, password_hash FROM identity.users WHERE lower(email) = lower($1)`,
      [email],
    );
    const row = result.rows[0];
    return row ? { user: toUser(row), passwordHash: row.password_hash } : undefined;
  }

  /** Uses a set-up link: sets the password; undefined when the link is unknown, used or expired. */
  async completeSetup(token: string, passwordHash: string): Promise<User | undefined> {
    return this.db.transaction(async (tx) => {
      const used = await tx.query<{ user_id: string }>(
        `UPDATE identity.setup_tokens SET used_at = now() WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING user_id`,
        [hashSecret(token)],
      );
      const userId = used.rows[0]?.user_id;
      if (!userId) return undefined;
      // Setting a password ends every session signed in with the old one.
      await tx.query(`DELETE FROM identity.sessions WHERE user_id = $1`, [userId]);
      const updated = await tx.query<UserRow>(
        `UPDATE identity.users SET password_hash = $2, updated_at = now() WHERE id = $1 RETURNING ${USER_COLUMNS}`,
        [userId, passwordHash],
      );
      return updated.rows[0] ? toUser(updated.rows[0]) : undefined;
    });
  }

  /** Starts a session; the token is the cookie's value (only its hash is stored). */
  async createSession(userId: string): Promise<{ token: string; expiresAt: Date }> {
    const { secret, hash } = newSecret(SESSION_PREFIX);
    const result = await this.db.query<{ expires_at: Date }>(
      `WITH signed_in AS (UPDATE identity.users SET last_sign_in_at = now() WHERE id = $2)
       INSERT INTO identity.sessions (id, token_hash, user_id, expires_at) VALUES ($1, $3, $2, now() + make_interval(secs => $4::float8)) RETURNING expires_at`,
      [newId(), userId, hash, SESSION_ABSOLUTE_SECONDS],
    );
    return { token: secret, expiresAt: (result.rows[0] as { expires_at: Date }).expires_at };
  }

  /** The principal of a live session token, marking it seen; undefined when unknown, idle too long or expired. */
  async principalOfSession(token: string): Promise<SessionPrincipal | undefined> {
    const result = await this.db.query<{
      id: string;
      user_id: string;
      org_id: string;
      role: Role;
      timezone: string;
      default_country: string;
      business_hours: WeeklyHours;
    }>(
      `UPDATE identity.sessions s SET last_seen_at = now()
       FROM identity.users u JOIN identity.organizations o ON o.id = u.org_id
       WHERE s.token_hash = $1 AND u.id = s.user_id AND s.expires_at > now() AND s.last_seen_at > now() - make_interval(secs => $2::float8)
       RETURNING s.id, s.user_id, u.org_id, u.role, o.timezone, o.default_country, o.business_hours`,
      [hashSecret(token), SESSION_IDLE_SECONDS],
    );
    const row = result.rows[0];
    if (!row) return undefined;
    return {
      keyId: `session:${row.id}`,
      sessionId: row.id,
      userId: row.user_id,
      orgId: row.org_id,
      role: row.role,
      timezone: row.timezone,
      country: row.default_country,
      businessHours: row.business_hours,
      expiresAt: undefined,
    };
  }

  async endSession(sessionId: string): Promise<void> {
    await this.db.query(`DELETE FROM identity.sessions WHERE id = $1`, [sessionId]);
  }

  /** Failed sign-ins within the window, per bucket, and seconds until the oldest leaves it. */
  async recentFailures(buckets: string[]): Promise<{ count: number; retryAfter: number }> {
    const result = await this.db.query<{ count: string; retry_after: number | null }>(
      `SELECT count(*) AS count, ceil(extract(epoch FROM min(at) + make_interval(secs => $2::float8) - now()))::int AS retry_after
       FROM identity.sign_in_failures WHERE bucket = ANY($1::text[]) AND at > now() - make_interval(secs => $2::float8)
       GROUP BY bucket ORDER BY count(*) DESC LIMIT 1`,
      [buckets, SIGN_IN_FAILURE_WINDOW_SECONDS],
    );
    const row = result.rows[0];
    return { count: row ? Number(row.count) : 0, retryAfter: Math.max(1, row?.retry_after ?? 1) };
  }

  async recordFailure(buckets: string[]): Promise<void> {
    await this.db.query(`INSERT INTO identity.sign_in_failures (bucket) SELECT unnest($1::text[])`, [buckets]);
  }

  /** Deletes ended sessions, used or expired set-up links and failures out of the window. */
  async prune(): Promise<void> {
    await this.db.query(
      `DELETE FROM identity.sessions WHERE expires_at <= now() OR last_seen_at <= now() - make_interval(secs => $1::float8)`,
      [SESSION_IDLE_SECONDS],
    );
    await this.db.query(`DELETE FROM identity.setup_tokens WHERE expires_at <= now() OR used_at IS NOT NULL`);
    await this.db.query(`DELETE FROM identity.sign_in_failures WHERE at <= now() - make_interval(secs => $1::float8)`, [
      SIGN_IN_FAILURE_WINDOW_SECONDS,
    ]);
  }
}
