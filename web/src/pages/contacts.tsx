import { useState } from "preact/hooks";
import { api } from "../api/client";
import type { components } from "../api/schema";
import { money, when, words } from "../format";
import { ListTable } from "../table";
import { useApi } from "../use-api";

type Contact = components["schemas"]["Contact"];
type Lead = components["schemas"]["Lead"];

const PAGE_SIZE = 25;

export function ContactsPage() {
  return (
    <>
      <Contacts />
      <Leads />
    </>
  );
}

function Contacts() {
  const [search, setSearch] = useState("");
  const [query, setQuery] = useState("");
  const [page, setPage] = useState(1);
  const [loaded, reload] = useApi(
    () =>
      api.GET("/api/contacts", {
        params: { query: { page, page_size: PAGE_SIZE, sort: "newest", search: query || undefined } },
      }),
    [page, query],
  );
  return (
    <section aria-labelledby="contacts-title">
      <h2 id="contacts-title">Contacts</h2>
      <form
        class="inline"
        onSubmit={(event) => {
          event.preventDefault();
          setPage(1);
          setQuery(search.trim());
        }}
      >
        <div>
          <label for="contact-search">Search contacts</label>
          <input
            id="contact-search"
            type="search"
            value={search}
            placeholder="Name, phone, email…"
            onInput={(e) => setSearch(e.currentTarget.value)}
          />
        </div>
        <button type="submit">Search</button>
      </form>
      <ListTable<Contact>
        loaded={loaded}
        retry={reload}
        what="Contacts"
        empty={query ? `No contact matches “${query}”.` : "No contacts yet."}
        rowKey={(c) => c.id}
        onPage={setPage}
        columns={[
          { header: "Name", cell: (c) => c.name ?? "(no name)" },
          { header: "Phone", cell: (c) => c.phone_number ?? "—" },
          { header: "Email", cell: (c) => c.email ?? "—" },
          { header: "Status", cell: (c) => c.status },
          { header: "Company", cell: (c) => c.company_name ?? "—" },
          { header: "Added", cell: (c) => when(c.created_at) },
        ]}
      />
    </section>
  );
}

function Leads() {
  const [page, setPage] = useState(1);
  const [loaded, reload] = useApi(
    () => api.GET("/api/leads", { params: { query: { page, page_size: PAGE_SIZE } } }),
    [page],
  );
  return (
    <section aria-labelledby="leads-title">
      <h2 id="leads-title">Leads</h2>
      <ListTable<Lead>
        loaded={loaded}
        retry={reload}
        what="Leads"
        empty="No leads yet."
        rowKey={(l) => l.id}
        onPage={setPage}
        columns={[
          { header: "Contact", cell: (l) => l.contact.name ?? l.contact.phone_number ?? "(no name)" },
          { header: "Status", cell: (l) => words(l.status) },
          { header: "Source", cell: (l) => l.source ?? "—" },
          { header: "Estimated value", cell: (l) => money(l.estimated_value_cents) },
          { header: "Next step", cell: (l) => l.next_step ?? "—" },
          { header: "Due", cell: (l) => when(l.next_step_due_at, "—") },
        ]}
      />
    </section>
  );
}
