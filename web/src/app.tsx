import type { JSX } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { api, errorMessage, setCsrfToken } from "./api/client";
import type { components } from "./api/schema";
import { ApiKeysPage } from "./pages/api-keys";
import { BusinessHoursPage } from "./pages/business-hours";
import { CallsPage } from "./pages/calls";
import { CampaignsPage } from "./pages/campaigns";
import { ContactsPage } from "./pages/contacts";
import { KnowledgeBasePage } from "./pages/knowledge-base";
import { OverviewPage } from "./pages/overview";
import { SchedulePage } from "./pages/schedule";
import { ServiceRequestsPage } from "./pages/service-requests";
import { SetupPage } from "./pages/setup";
import { SignInPage } from "./pages/sign-in";
import { UsersPage } from "./pages/users";
import { WebhooksPage } from "./pages/webhooks";
import { linkProps, navigate, usePage } from "./router";
import { ErrorBox, Loading } from "./states";

export type Me = components["schemas"]["Me"];

const PAGES: { page: string; title: string; show: (me: Me) => JSX.Element }[] = [
  { page: "/", title: "Overview", show: () => <OverviewPage /> },
  { page: "/calls", title: "Calls", show: () => <CallsPage /> },
  { page: "/contacts", title: "Contacts and leads", show: () => <ContactsPage /> },
  { page: "/service-requests", title: "Service requests", show: () => <ServiceRequestsPage /> },
  { page: "/schedule", title: "Schedule", show: (me) => <SchedulePage me={me} /> },
  { page: "/campaigns", title: "Campaigns", show: () => <CampaignsPage /> },
  { page: "/knowledge-base", title: "Knowledge base", show: () => <KnowledgeBasePage /> },
  { page: "/webhooks", title: "Webhooks", show: () => <WebhooksPage /> },
  { page: "/api-keys", title: "API keys", show: (me) => <ApiKeysPage me={me} /> },
  { page: "/users", title: "Users", show: (me) => <UsersPage me={me} /> },
  { page: "/business-hours", title: "Business hours", show: (me) => <BusinessHoursPage me={me} /> },
];

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
  const [menuOpen, setMenuOpen] = useState(false);
  const current = PAGES.find((p) => p.page === page) ?? (PAGES[0] as (typeof PAGES)[number]);
  // A new page moves the focus to its heading, as a page load would for a screen reader.
  useEffect(() => {
    document.title = `${current.title} · ${me.organization?.name ?? "VoiceOps"}`;
    heading.current?.focus();
    setMenuOpen(false);
  }, [page]);
  return (
    <>
      <a class="skip" href="#content">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">{me.organization?.name ?? "VoiceOps"}</span>
        {/* On a narrow screen the navigation folds behind this button (styles.css). */}
        <button
          type="button"
          class="menu"
          aria-expanded={menuOpen}
          aria-controls="main-nav"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          Menu
        </button>
        <nav id="main-nav" aria-label="Main" class={menuOpen ? "open" : undefined}>
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
        {current.show(me)}
      </main>
    </>
  );
}
