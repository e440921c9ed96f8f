import { useState } from "preact/hooks";
import { api, errorMessage } from "../api/client";
import type { Me } from "../app";
import type { components } from "../api/schema";
import { Empty, Show } from "../states";
import { useApi } from "../use-api";

type Role = components["schemas"]["User"]["role"];

export function UsersPage({ me }: { me: Me }) {
  const [loaded, reload] = useApi(() => api.GET("/api/users"));
  const manager = me.role === "owner" || me.role === "admin";
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("member");
  const [link, setLink] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const invite = async (event: Event) => {
    event.preventDefault();
    setError(null);
    const { data, error: failure, response } = await api.POST("/api/users", { body: { email: email.trim(), role } });
    if (data) {
      setLink(data.setup_url);
      setEmail("");
      reload();
    } else setError(errorMessage(failure, response.status));
  };
  const remove = async (id: string) => {
    setError(null);
    const { error: failure, response } = await api.DELETE("/api/users/{user_id}", {
      params: { path: { user_id: id } },
    });
    if (!response.ok) setError(errorMessage(failure, response.status));
    reload();
  };

  return (
    <>
      {manager ? (
        <form class="inline" onSubmit={invite}>
          <div>
            <label for="invite-email">Email</label>
            <input
              id="invite-email"
              type="email"
              required
              value={email}
              onInput={(e) => setEmail(e.currentTarget.value)}
            />
          </div>
          <div>
            <label for="invite-role">Role</label>
            <select id="invite-role" value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
              <option value="member">member</option>
              <option value="admin">admin</option>
              {me.role === "owner" ? <option value="owner">owner</option> : null}
            </select>
          </div>
          <button type="submit">Invite</button>
        </form>
      ) : null}
      {link ? (
        <p role="status">
          Send this set-up link to the new user (valid 72 hours): <code>{link}</code>
        </p>
      ) : null}
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      <Show
        loaded={loaded}
        what="users"
        retry={reload}
        ready={({ items }) =>
          items.length === 0 ? (
            <Empty>No users yet.</Empty>
          ) : (
            <div class="table-wrap">
              <table>
                <caption class="visually-hidden">Users</caption>
                <thead>
                  <tr>
                    <th scope="col">Email</th>
                    <th scope="col">Role</th>
                    <th scope="col">Last sign-in</th>
                    {manager ? <th scope="col">Action</th> : null}
                  </tr>
                </thead>
                <tbody>
                  {items.map((user) => (
                    <tr key={user.id}>
                      <td>{user.email}</td>
                      <td>{user.role}</td>
                      <td>{user.last_sign_in_at ? new Date(user.last_sign_in_at).toLocaleString() : "not yet"}</td>
                      {manager ? (
                        <td>
                          {user.id === me.user?.id ? null : (
                            <button type="button" onClick={() => remove(user.id)} aria-label={`Remove ${user.email}`}>
                              Remove
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
