import { useState } from "preact/hooks";
import { api, errorMessage } from "../api/client";
import type { Me } from "../app";
import type { components } from "../api/schema";
import { when } from "../format";
import { Empty, Show } from "../states";
import { useApi } from "../use-api";

type NewKey = components["schemas"]["NewApiKey"];
type Role = components["schemas"]["ApiKey"]["role"];

export function ApiKeysPage({ me }: { me: Me }) {
  const [loaded, reload] = useApi(() => api.GET("/api/api-keys"));
  const manager = me.role === "owner" || me.role === "admin";
  const [created, setCreated] = useState<NewKey | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);

  const revoke = async (id: string) => {
    setError(null);
    const { error: failure, response } = await api.DELETE("/api/api-keys/{key_id}", {
      params: { path: { key_id: id } },
    });
    setConfirming(null);
    if (!response.ok) setError(errorMessage(failure, response.status));
    reload();
  };

  return (
    <>
      <p>
        Keys let integrations and voice agents use the API as your organization. Send a key in the X-API-Key header.
      </p>
      {manager ? (
        <GenerateKey
          me={me}
          onCreated={(key) => {
            setCreated(key);
            reload();
          }}
        />
      ) : (
        <p class="muted">Only owners and admins generate and revoke keys.</p>
      )}
      {created ? <ShownOnce created={created} onDone={() => setCreated(null)} /> : null}
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      <h2>Keys</h2>
      <Show
        loaded={loaded}
        what="API keys"
        retry={reload}
        ready={({ items }) =>
          items.length === 0 ? (
            <Empty>No API keys yet.</Empty>
          ) : (
            <div class="table-wrap">
              <table>
                <caption class="visually-hidden">API keys</caption>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Key starts with</th>
                    <th scope="col">Role</th>
                    <th scope="col">Created</th>
                    <th scope="col">Status</th>
                    {manager ? <th scope="col">Action</th> : null}
                  </tr>
                </thead>
                <tbody>
                  {items.map((key) => (
                    <tr key={key.id}>
                      <td>{key.name ?? "(no name)"}</td>
                      <td>
                        <code>{key.prefix}…</code>
                      </td>
                      <td>{key.role}</td>
                      <td>{when(key.created_at)}</td>
                      <td>
                        {key.revoked_at
                          ? `revoked ${when(key.revoked_at)}`
                          : key.expires_at
                            ? `expires ${when(key.expires_at)}`
                            : "active"}
                      </td>
                      {manager ? (
                        <td>
                          {key.revoked_at ? null : confirming === key.id ? (
                            <>
                              <button type="button" class="danger" onClick={() => revoke(key.id)}>
                                Confirm revoke {key.name ?? key.prefix}
                              </button>{" "}
                              <button type="button" onClick={() => setConfirming(null)}>
                                Cancel
                              </button>
                            </>
                          ) : (
                            <button
                              type="button"
                              onClick={() => setConfirming(key.id)}
                              aria-label={`Revoke ${key.name ?? key.prefix}`}
                            >
                              Revoke
                            </button>
                          )}
                        </td>
                      ) : null}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      />
    </>
  );
}

function GenerateKey({ me, onCreated }: { me: Me; onCreated: (key: NewKey) => void }) {
  const [name, setName] = useState("");
  const [role, setRole] = useState<Role>("member");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const roles: Role[] = me.role === "owner" ? ["member", "admin", "owner"] : ["member", "admin"];

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const {
        data,
        error: failure,
        response,
      } = await api.POST("/api/api-keys", { body: { name: name.trim() || undefined, role } });
      if (data) {
        setName("");
        onCreated(data);
      } else setError(errorMessage(failure, response.status));
    } catch {
      setError(errorMessage(undefined));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="inline" onSubmit={submit}>
      <div>
        <label for="key-name">Key name</label>
        <input
          id="key-name"
          value={name}
          maxLength={100}
          placeholder="e.g. Zapier"
          onInput={(e) => setName(e.currentTarget.value)}
        />
      </div>
      <div>
        <label for="key-role">Role</label>
        <select id="key-role" value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
          {roles.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </div>
      <button type="submit" disabled={busy}>
        Generate key
      </button>
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
    </form>
  );
}

function ShownOnce({ created, onDone }: { created: NewKey; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created.key);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return (
    <section class="shown-once" aria-labelledby="new-key-title">
      <h2 id="new-key-title">Your new key</h2>
      <p>Copy it now: it is shown only once.</p>
      <label for="new-key">New API key</label>
      <input id="new-key" readOnly value={created.key} onFocus={(e) => e.currentTarget.select()} />
      <button type="button" onClick={copy}>
        Copy
      </button>
      <span role="status">{copied ? " Copied." : ""}</span>
      <p>
        <button type="button" onClick={onDone}>
          I have saved it
        </button>
      </p>
    </section>
  );
}
