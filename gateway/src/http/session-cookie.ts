import type { Request, Response } from "express";

// The dashboard's session cookie: HttpOnly, SameSite=Lax, Secure when the public URL is https.

const SESSION_COOKIE = "vo_session";
/** The header a session's unsafe requests carry their CSRF token in. */
export const CSRF_HEADER = "x-csrf-token";

/** The session cookie's value, when the request has one. */
export function sessionCookieOf(req: Request): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = part.slice(eq + 1).trim();
      return value === "" ? undefined : value;
    }
  }
  return undefined;
}

export interface CookieOptions {
  secure: boolean;
}

export function setSessionCookie(res: Response, token: string, maxAgeSeconds: number, options: CookieOptions): void {
  res.append(
    "Set-Cookie",
    `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${options.secure ? "; Secure" : ""}`,
  );
}

export function clearSessionCookie(res: Response, options: CookieOptions): void {
  res.append(
    "Set-Cookie",
    `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${options.secure ? "; Secure" : ""}`,
  );
}
