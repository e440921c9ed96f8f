import { randomUUID } from "node:crypto";
import { inject } from "vitest";
import { AdminClient, ApiClient, newTenant, type Tenant } from "./index.js";

// The shared test system that the global setup starts once per run (gateway/test/global-setup.ts)
// and hands to every test file through vitest's provide/inject. Call these inside test files only.

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    adminUrl: string;
    adminToken: string;
    internalToken: string;
    /** INTERNAL_API_KEY of the test system (the voice runtime's x-internal-key). */
    internalApiKey: string;
    serviceUrls: Record<string, string>;
    mode: string;
    /** Process id of the test system (the process that serves baseUrl). */
    serverPid: number;
  }
}

/** Settings of an organization a test creates. */
export interface OrgSettings {
  timezone?: string;
  default_country?: string;
}

/** An admin client of the shared test system. */
export function testAdmin(): AdminClient {
  return new AdminClient(inject("adminUrl"), inject("adminToken"));
}

/** A client of the shared test system (or of `baseUrl`) that sends no API key. */
export function anonymousClient(baseUrl: string = inject("baseUrl")): ApiClient {
  return new ApiClient(baseUrl, undefined);
}

/** A client of the shared test system (or of `baseUrl`) with a well-formed API key that was never issued. */
export function unknownKeyClient(baseUrl: string = inject("baseUrl")): ApiClient {
  return new ApiClient(baseUrl, `vo_${randomUUID().replaceAll("-", "")}`);
}

/** A `tenant(org?)` function that creates a fresh tenant on the shared test system, with `defaults` unless `org` overrides them. */
export function tenantFactory(defaults: OrgSettings = {}): (org?: OrgSettings) => Promise<Tenant> {
  return (org = {}) => newTenant(inject("baseUrl"), testAdmin(), { ...defaults, ...org });
}
