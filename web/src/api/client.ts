import createClient, { type Middleware } from "openapi-fetch";
import type { paths } from "./schema";

// The public REST API as the signed-in user: the session cookie goes by itself (same origin),
// and every change carries the session's CSRF token.

let csrfToken: string | null = null;

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

const csrf: Middleware = {
  onRequest({ request }) {
    if (csrfToken && !["GET", "HEAD", "OPTIONS"].includes(request.method))
      request.headers.set("X-CSRF-Token", csrfToken);
    return request;
  },
};

export const api = createClient<paths>({ baseUrl: "", credentials: "same-origin" });
api.use(csrf);

/** A readable message of an API error body ({"detail": "..."} or a 422's entries). */
export function errorMessage(error: unknown, status?: number): string {
  const detail = (error as { detail?: unknown } | undefined)?.detail;
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail))
    return detail
      .map(
        (entry: { loc?: unknown[]; msg?: string }) =>
          `${(entry.loc ?? []).slice(1).join(".") || "request"}: ${entry.msg ?? "invalid"}`,
      )
      .join("; ");
  return status ? `The server answered ${status}` : "The server could not be reached";
}
