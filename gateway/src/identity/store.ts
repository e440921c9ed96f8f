import { DEFAULT_BUSINESS_HOURS, newId, type Database, type Role, type WeeklyHours } from "@voiceops/platform";
import { generateApiKey } from "./keys.js";

export interface Organization {
  id: string;
  name: string;
  timezone: string;
  default_country: string;
  business_hours: WeeklyHours;
  created_at: string;
}

export interface ApiKeyRecord {
  id: string;
  org_id: string;
  name: string | null;
  prefix: string;
  role: Role;
  expires_at: string | null;
  revoked_at: string | null;
  created_at: string;
}

/** What a valid key stands for. */
export interface Principal {
  keyId: string;
  orgId: string;
  role: Role;
  timezone: string;
  country: string;
  businessHours: WeeklyHours;
  expiresAt: number | undefined;
  /** The signed-in dashboard user, when a session (not a key) authenticated the request. */
  userId?: string;
  sessionId?: string;
}

interface OrgRow {
  id: string;
  name: string;
  timezone: string;
  default_country: string;
  business_hours: WeeklyHours;
  created_at: Date;
}

interface KeyRow {
  id: string;
  org_id: string;
  name: string | null;
  prefix: string;
  role: Role;
  expires_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

function toOrganization(row: OrgRow): Organization {
  return {
    id: row.id,
    name: row.name,
    timezone: row.timezone,
    default_country: row.default_country,
    business_hours: row.business_hours,
    created_at: row.created_at.toISOString(),
  };
}

function toKey(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    org_id: row.org_id,
    name: row.name,
    prefix: row.prefix,
    role: row.role,
    expires_at: iso(row.expires_at),
    revoked_at: iso(row.revoked_at),
    created_at: row.created_at.toISOString(),
  };
}

const ORG_COLUMNS = "id, name, timezone, default_country, business_hours, created_at";
const KEY_COLUMNS = "id, org_id, name, prefix, role, expires_at, revoked_at, created_at";

/** Organizations and API keys, in the gateway's own schema. */
export class IdentityStore {
  constructor(private readonly db: Database) {}

  async createOrganization(input: {
    name: string;
    timezone: string;
    defaultCountry: string;
    businessHours?: WeeklyHours;
  }): Promise<Organization> {
    const result = await this.db.query<OrgRow>(
      `INSERT INTO identity.organizations (id, name, timezone, default_country, business_hours) VALUES ($1, $2, $3, $4, $5) RETURNING ${ORG_COLUMNS}`,
      [
        newId(),
        input.name,
        input.timezone,
        input.defaultCountry,
        JSON.stringify(input.businessHours ?? DEFAULT_BUSINESS_HOURS),
      ],
    );
    return toOrganization(result.rows[0] as OrgRow);
  }

  async getOrganization(id: string): Promise<Organization | undefined> {
    const result = await this.db.query<OrgRow>(`SELECT ${ORG_COLUMNS} FROM identity.organizations WHERE id = $1`, [id]);
    return result.rows[0] ? toOrganization(result.rows[0]) : undefined;
  }

  async findOrganizationsByName(name: string): Promise<Organization[]> {
    const result = await this.db.query<OrgRow>(
      `SELECT ${ORG_COLUMNS} FROM identity.organizations WHERE lower(name) = lower($1) ORDER BY created_at, id LIMIT 100`,
      [name],
    );
    return result.rows.map(toOrganization);
  }

  /** Changes the given fields; business hours are replaced as a whole week. */
  async updateOrganization(
    id: string,
    changes: { name?: string; timezone?: string; defaultCountry?: string; businessHours?: WeeklyHours },
  ): Promise<Organization | undefined> {
    const result = await this.db.query<OrgRow>(
      `UPDATE identity.organizations
       SET name = coalesce($2, name), timezone = coalesce($3, timezone),
           default_country = coalesce($4, default_country), business_hours = coalesce($5::jsonb, business_hours), updated_at = now()
       WHERE id = $1 RETURNING ${ORG_COLUMNS}`,
      [
        id,
        changes.name ?? null,
        changes.timezone ?? null,
        changes.defaultCountry ?? null,
        changes.businessHours ? JSON.stringify(changes.businessHours) : null,
      ],
    );
    return result.rows[0] ? toOrganization(result.rows[0]) : undefined;
  }

  async createApiKey(
    orgId: string,
    input: { name: string | null; role: Role; expiresAt: Date | null },
  ): Promise<ApiKeyRecord & { key: string }> {
    const { key, prefix, hash } = generateApiKey();
    const result = await this.db.query<KeyRow>(
      `INSERT INTO identity.api_keys (id, org_id, name, prefix, key_hash, role, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${KEY_COLUMNS}`,
      [newId(), orgId, input.name, prefix, hash, input.role, input.expiresAt],
    );
    return { ...toKey(result.rows[0] as KeyRow), key };
  }

  async getApiKey(id: string): Promise<ApiKeyRecord | undefined> {
    const result = await this.db.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM identity.api_keys WHERE id = $1`, [id]);
    return result.rows[0] ? toKey(result.rows[0]) : undefined;
  }

  async listApiKeys(orgId: string): Promise<ApiKeyRecord[]> {
    const result = await this.db.query<KeyRow>(
      `SELECT ${KEY_COLUMNS} FROM identity.api_keys WHERE org_id = $1 ORDER BY created_at, id`,
      [orgId],
    );
    return result.rows.map(toKey);
  }

  /** Marks a key revoked; returns its org id, or undefined when there is no such key. */
  async revokeApiKey(id: string): Promise<string | undefined> {
    const result = await this.db.query<{ org_id: string }>(
      `UPDATE identity.api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 RETURNING org_id`,
      [id],
    );
    return result.rows[0]?.org_id;
  }

  /** The principal of a key hash, or undefined for an unknown or revoked key (one round trip). */
  async principalByHash(hash: string): Promise<Principal | undefined> {
    const result = await this.db.query<{
      id: string;
      org_id: string;
      role: Role;
      expires_at: Date | null;
      timezone: string;
      default_country: string;
      business_hours: WeeklyHours;
    }>(
      `SELECT k.id, k.org_id, k.role, k.expires_at, o.timezone, o.default_country, o.business_hours
       FROM identity.api_keys k JOIN identity.organizations o ON o.id = k.org_id
       WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
      [hash],
    );
    const row = result.rows[0];
    if (!row) return undefined;
    return {
      keyId: row.id,
      orgId: row.org_id,
      role: row.role,
      timezone: row.timezone,
      country: row.default_country,
      businessHours: row.business_hours,
      expiresAt: row.expires_at ? row.expires_at.getTime() : undefined,
    };
  }
}
