import type { ConnectError } from "@connectrpc/connect";
import { expect } from "vitest";
import type { ApiClient, ApiResponse } from "./index.js";

// Assertions and small helpers shared by the HTTP tests of every service.

/** An RFC 3339 timestamp in UTC, as the API writes every timestamp. */
export const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** A lower-case UUID, as the API writes every id. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A well-formed id that no record has. */
export const UNKNOWN_ID = "00000000-0000-4000-8000-000000000000";

/** The ids of records, in their order. */
export const idsOf = (records: readonly { id: string }[]): string[] => records.map((r) => r.id);

/** The names of records, in their order. */
export const namesOf = <T extends { name: unknown }>(records: readonly T[]): T["name"][] => records.map((r) => r.name);

/** The locations of the entries of a 422 body, in the order the API reports them. */
export const locs = (body: { detail: { loc: unknown[] }[] }) => body.detail.map((d) => d.loc);

/** Expects the given status (showing the body when it differs) and returns the body. */
export function expectStatus<T>(res: ApiResponse<T>, status: number): T {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body;
}

/** The REST body of a service's named error (defineErrors): its message as the `detail`. */
export function detailOf(error: ConnectError): { detail: string } {
  return { detail: error.rawMessage };
}

/** Expects an RFC 3339 UTC timestamp within a minute of now. */
export function expectRecent(stamp: string | null | undefined): void {
  expect(stamp).toMatch(RFC3339_UTC);
  expect(Math.abs(Date.parse(stamp as string) - Date.now())).toBeLessThan(60_000);
}

/** Expects `{"detail": "<non-empty string>"}` with the given status, and returns the detail. */
export function expectDetail(res: ApiResponse, status: number): string {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(Object.keys(res.body)).toEqual(["detail"]);
  expect(typeof res.body.detail).toBe("string");
  expect(res.body.detail.length).toBeGreaterThan(0);
  return res.body.detail;
}

/** Expects `method path`, sent by `client` (with `body` on POST and PUT only), to answer 401 with a JSON detail. */
export async function expect401(client: ApiClient, method: string, path: string, body?: unknown): Promise<void> {
  expectDetail(
    await client.request(method, path, { body: method === "POST" || method === "PUT" ? body : undefined }),
    401,
  );
}

/** An error the test expects in a 422 body: its location and, where given, its pydantic type. */
interface ExpectedError {
  loc: (string | number)[];
  type?: string;
}

/** One entry of the `detail` list of a 422 HTTPValidationError body. */
interface ValidationErrorEntry {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** Expects a 422 HTTPValidationError with exactly one well-formed entry per expected loc (any order), of the given types; returns the entries. */
export function expect422(res: ApiResponse, expected: ExpectedError[]): ValidationErrorEntry[] {
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(Object.keys(res.body)).toEqual(["detail"]);
  const detail = res.body.detail as ValidationErrorEntry[];
  expect(Array.isArray(detail)).toBe(true);
  for (const entry of detail) {
    expect(["query", "path", "body", "header"]).toContain(entry.loc[0]);
    expect(typeof entry.msg).toBe("string");
    expect(typeof entry.type).toBe("string");
  }
  expect(detail.map((e) => JSON.stringify(e.loc)).sort()).toEqual(expected.map((e) => JSON.stringify(e.loc)).sort());
  for (const want of expected) {
    if (want.type === undefined) continue;
    const got = detail.find((e) => JSON.stringify(e.loc) === JSON.stringify(want.loc));
    expect(got?.type, `type at ${JSON.stringify(want.loc)}`).toBe(want.type);
  }
  return detail;
}
