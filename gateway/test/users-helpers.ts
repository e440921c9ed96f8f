import { randomBytes } from "node:crypto";

// A browser's part in the dashboard tests: it keeps the session cookie and sends the CSRF token.

export interface HttpAnswer {
  status: number;
  body: any;
  headers: Headers;
}

export async function http(
  baseUrl: string,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<HttpAnswer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

/** A client address of its own (the test system trusts X-Forwarded-For from loopback). */
export function newAddress(): string {
  const [a = 0, b = 0] = randomBytes(2);
  return `10.${a}.${b}.${1 + ((randomBytes(1)[0] ?? 0) % 250)}`;
}

export const uniqueEmail = (label: string) => `${label}-${randomBytes(6).toString("hex")}@example.com`;

/** What a browser holds after signing in: its cookie and its CSRF token. */
export class BrowserSession {
  constructor(
    readonly baseUrl: string,
    readonly cookie: string,
    readonly csrfToken: string,
    readonly address: string,
  ) {}

  static async signIn(
    baseUrl: string,
    email: string,
    password: string,
    address = newAddress(),
  ): Promise<BrowserSession | HttpAnswer> {
    const answer = await http(baseUrl, "POST", "/api/auth/sign-in", {
      body: { email, password },
      headers: { "x-forwarded-for": address },
    });
    if (answer.status !== 200) return answer;
    return BrowserSession.from(baseUrl, answer, address);
  }

  static from(baseUrl: string, answer: HttpAnswer, address: string): BrowserSession {
    const cookie = (answer.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    return new BrowserSession(baseUrl, cookie, answer.body.csrf_token, address);
  }

  request(
    method: string,
    path: string,
    options: { body?: unknown; csrf?: boolean; headers?: Record<string, string> } = {},
  ): Promise<HttpAnswer> {
    const headers: Record<string, string> = {
      cookie: this.cookie,
      "x-forwarded-for": this.address,
      ...options.headers,
    };
    if (options.csrf !== false && method !== "GET") headers["x-csrf-token"] = this.csrfToken;
    return http(this.baseUrl, method, path, { body: options.body, headers });
  }
}
