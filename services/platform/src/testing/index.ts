import { createHash, randomBytes, randomUUID } from "node:crypto";
import { streamNamespace } from "../bus/nats.js";
import { checkResponse } from "./openapi-check.js";

// Helpers for tests that talk to a running system over real HTTP.

/**
 * Environment of a test system: the machine's DATABASE_URL and NATS_URL when set (distributed
 * mode), fresh tokens, ephemeral ports and quiet logs.
 */
export function testEnv(overrides: Record<string, string> = {}): Record<string, string | undefined> {
  return {
    DATABASE_URL: process.env.DATABASE_URL,
    NATS_URL: process.env.NATS_URL,
    // Tests keep their own streams and consumers, apart from a stack running on the same server;
    // a system on a database of its own has its own too (see testNatsPrefix).
    NATS_PREFIX: testNatsPrefix(overrides.DATABASE_URL ?? process.env.DATABASE_URL),
    // Test streams need no long history.
    EVENT_RETENTION_DAYS: "7",
    // CI runs many systems and service processes side by side on one PostgreSQL server
    // (max_connections 100 by default); with the default pools of 10 they ran out of connections
    // and a process failed to start with "too many clients".
    DB_POOL_SIZE: "5",
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    PORT: "0",
    ADMIN_PORT: "0",
    HOST: "127.0.0.1",
    ADMIN_TOKEN: randomBytes(18).toString("base64url"),
    INTERNAL_TOKEN: randomBytes(18).toString("base64url"),
    // The voice runtime's key, which POST /api/activities accepts in x-internal-key.
    INTERNAL_API_KEY: randomBytes(18).toString("base64url"),
    // Webhook tests deliver to receivers on 127.0.0.1, and retry within seconds.
    WEBHOOK_ALLOW_PRIVATE_URLS: "true",
    WEBHOOK_RETRY_SCHEDULE: "0,2s,2s,2s",
    ...overrides,
  };
}

/**
 * The NATS namespace of the test systems on one database. Durable consumers are shared by name
 * within a namespace, so a system on a database of its own that shared the common one had
 * about half its events taken by another system's consumers, which looked for their rows in
 * the wrong database (a knowledge source then waited for the 5 s poll instead of its event).
 */
function testNatsPrefix(databaseUrl: string | undefined): string {
  return `test_${createHash("sha256")
    .update(databaseUrl ?? "")
    .digest("hex")
    .slice(0, 10)}`;
}

/** Deletes the JetStream streams of a namespace (a scratch database's, once it is dropped). */
export async function deleteNatsStreams(natsUrl: string, prefix: string): Promise<void> {
  const { connect } = await import("nats");
  const connection = await connect({ servers: natsUrl });
  try {
    const manager = await connection.jetstreamManager();
    const names: string[] = [];
    for await (const stream of manager.streams.list())
      if (stream.config.name.startsWith(streamNamespace(prefix))) names.push(stream.config.name);
    for (const name of names) await manager.streams.delete(name);
  } finally {
    await connection.close();
  }
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/**
 * A small JSON client for the REST API. Every response it receives is checked against the
 * OpenAPI document the gateway serves (openapi-check.ts): a mismatch fails the test.
 */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly apiKey: string | undefined,
  ) {}

  async request<T = any>(
    method: string,
    path: string,
    options: { body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    let body: string | undefined;
    if (options.rawBody !== undefined) {
      body = options.rawBody;
      headers["content-type"] ??= "application/json";
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers["content-type"] = "application/json";
    }
    return this.send<T>(method, path, headers, body);
  }

  /** Sends a file: a multipart form, or a raw body of the given content type (a stream goes without a length, chunked). */
  upload<T = any>(
    method: string,
    path: string,
    body: FormData | Uint8Array | string | ReadableStream<Uint8Array>,
    contentType?: string,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse<T>> {
    return this.send<T>(method, path, contentType ? { ...headers, "content-type": contentType } : { ...headers }, body);
  }

  private async send<T>(
    method: string,
    path: string,
    headers: Record<string, string>,
    body: FormData | Uint8Array | string | ReadableStream<Uint8Array> | undefined,
  ): Promise<ApiResponse<T>> {
    if (this.apiKey !== undefined) headers["x-api-key"] = this.apiKey;
    const streamed = body instanceof ReadableStream ? { duplex: "half" } : {};
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body, ...streamed } as RequestInit);
    const text = await response.text();
    const json = (text ? JSON.parse(text) : undefined) as T;
    await checkResponse(this.baseUrl, method, path, response.status, json, text !== "");
    return { status: response.status, headers: response.headers, body: json };
  }

  get<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>("GET", path, { headers });
  }
  post<T = any>(path: string, body?: unknown) {
    return this.request<T>("POST", path, { body });
  }
  put<T = any>(path: string, body?: unknown) {
    return this.request<T>("PUT", path, { body });
  }
  delete<T = any>(path: string) {
    return this.request<T>("DELETE", path);
  }
}

/** What a test may set on a new organization (the admin API's fields); a random name by default. */
export interface OrganizationInput {
  name?: string;
  timezone?: string;
  default_country?: string;
  business_hours?: Record<string, { start: string; end: string }[]>;
}

const ALL_DAY = [{ start: "00:00", end: "24:00" }];

/** Business hours open every hour of every day: slots and "inside hours" whenever a test runs. */
export const OPEN_AROUND_THE_CLOCK = {
  mon: ALL_DAY,
  tue: ALL_DAY,
  wed: ALL_DAY,
  thu: ALL_DAY,
  fri: ALL_DAY,
  sat: ALL_DAY,
  sun: ALL_DAY,
};

/** The admin API, as an operator uses it. */
export class AdminClient {
  constructor(
    readonly adminUrl: string,
    readonly token: string,
  ) {}

  async request<T = any>(method: string, path: string, body?: unknown, token = this.token): Promise<ApiResponse<T>> {
    const response = await fetch(`${this.adminUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : undefined) as T };
  }

  async createOrganization(input: OrganizationInput = {}) {
    const response = await this.request("POST", "/admin/organizations", {
      name: input.name ?? `Org ${randomUUID()}`,
      ...input,
    });
    if (response.status !== 201)
      throw new Error(`create organization: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body as { id: string; name: string; timezone: string; default_country: string };
  }

  async createKey(orgId: string, input: { role?: string; expires_at?: string; name?: string } = {}) {
    const response = await this.request("POST", `/admin/organizations/${orgId}/api-keys`, input);
    if (response.status !== 201) throw new Error(`create key: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body as { id: string; key: string; prefix: string; role: string };
  }
}

export interface Tenant {
  orgId: string;
  /** Owner key. */
  owner: ApiClient;
  /** Member key (no delete rights on contacts). */
  member: ApiClient;
  admin: AdminClient;
}

/** A fresh organization with an owner and a member key: tests never see each other's data. */
export async function newTenant(baseUrl: string, admin: AdminClient, org: OrganizationInput = {}): Promise<Tenant> {
  const created = await admin.createOrganization(org);
  const [owner, member] = await Promise.all([
    admin.createKey(created.id, { role: "owner" }),
    admin.createKey(created.id, { role: "member" }),
  ]);
  return {
    orgId: created.id,
    owner: new ApiClient(baseUrl, owner.key),
    member: new ApiClient(baseUrl, member.key),
    admin,
  };
}

/** Polls until check returns a value, or fails after timeoutMs. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 10_000,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${String(last)}` : ""}`);
}

/**
 * A database of its own for a test that must not share its outbox with other systems (every
 * system on one database shares the work of its outbox relays, as replicas do).
 */
export async function isolatedDatabase(baseUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const { default: pg } = await import("pg");
  const name = `voiceops_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: baseUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
      // Its test systems' streams go with it.
      const natsUrl = process.env.NATS_URL;
      if (natsUrl) await deleteNatsStreams(natsUrl, testNatsPrefix(url.toString()));
    },
  };
}
export * from "./database.js";
export * from "./grpc.js";
export * from "./expect.js";
export * from "./system.js";
export * from "./processes.js";
export * from "./memory.js";
export * from "./s3.js";
export * from "./handlers.js";
export * from "./openapi-check.js";
export * from "./rpc-server.js";
