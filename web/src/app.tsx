import { useEffect, useRef, useState } from "preact/hooks";
import { api, errorMessage, setCsrfToken } from "./api/client";
import type { components } from "./api/schema";
import { ApiKeysPage } from "./pages/api-keys";
import { BusinessHoursPage } from "./pages/business-hours";
import { OverviewPage } from "./pages/overview";
import { SetupPage } from "./pages/setup";
import { SignInPage } from "./pages/sign-in";
import { UsersPage } from "./pages/users";
import { linkProps, navigate, usePage } from "./router";
import { ErrorBox, Loading } from "./states";

export type Me = components["schemas"]["Me"];

const PAGES = [
  { page: "/", title: "Overview" },
  { page: "/api-keys", title: "API keys" },
  { page: "/users", title: "Users" },
  { page: "/business-hours", title: "Business hours" },
] as const;

type Session =
  | { state: "loading" }
  | { state: "signed-out" }
  | { state: "error"; message: string }
  | { state: "signed-in"; me: Me };

export function App() {
  const page = usePage();
  const [session, setSession] = useState<Session>({ state: "loading" });

  const load = () => {
    api.GET("/api/auth/session").then(
      ({ data, error, response }) => {
        if (data?.me) {
          setCsrfToken(data.me.csrf_token);
          setSession({ state: "signed-in", me: data.me });
        } else if (data) setSession({ state: "signed-out" });
        else setSession({ state: "error", message: errorMessage(error, response.status) });
      },
      () => setSession({ state: "error", message: errorMessage(undefined) }),
    );
  };
  useEffect(load, []);

  const signedIn = (me: Me) => {
    setCsrfToken(me.csrf_token);
    setSession({ state: "signed-in", me });
    if (page === "/setup" || page === "/sign-in") navigate("/");
  };

  if (page === "/setup") return <SetupPage onSignedIn={signedIn} />;
  if (session.state === "loading") return <Loading what="your account" />;
  if (session.state === "error") return <ErrorBox message={session.message} retry={load} />;
  if (session.state === "signed-out") return <SignInPage onSignedIn={signedIn} />;

  const signOut = async () => {
    await api.POST("/api/auth/sign-out");
    setCsrfToken(null);
    setSession({ state: "signed-out" });
  };
  return <Shell me={session.me} page={page} onSignOut={signOut} />;
}

function Shell({ me, page, onSignOut }: { me: Me; page: string; onSignOut: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  const current = PAGES.find((p) => p.page === page) ?? PAGES[0];
  // A new page moves the focus to its heading, as a page load would for a screen reader.
  useEffect(() => {
    document.title = `${current.title} · ${me.organization?.name ?? "VoiceOps"}`;
    heading.current?.focus();
  }, [page]);
  return (
    <>
      <a class="skip" href="#content">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">{me.organization?.name ?? "VoiceOps"}</span>
        <nav aria-label="Main">
          <ul>
            {PAGES.map((p) => (
              <li key={p.page}>
                <a {...linkProps(p.page)} aria-current={p.page === current.page ? "page" : undefined}>
                  {p.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="who">
          {me.user?.email} ({me.role})
          <button type="button" class="link" onClick={onSignOut}>
            Sign out
          </button>
        </span>
      </header>
      <main id="content">
        <h1 ref={heading} tabIndex={-1}>
          {current.title}
        </h1>
        {current.page === "/" ? <OverviewPage /> : null}
        {current.page === "/api-keys" ? <ApiKeysPage me={me} /> : null}
        {current.page === "/users" ? <UsersPage me={me} /> : null}
        {current.page === "/business-hours" ? <BusinessHoursPage me={me} /> : null}
      </main>
    </>
  );
}
