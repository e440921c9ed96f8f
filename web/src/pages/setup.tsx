import { useState } from "preact/hooks";
import { api, errorMessage } from "../api/client";
import type { Me } from "../app";

const MIN_LENGTH = 12;

/** The set-up link's page: the token is in the fragment (#token=...), never sent to a server log. */
export function SetupPage({ onSignedIn }: { onSignedIn: (me: Me) => void }) {
  const token = new URLSearchParams(location.hash.slice(1)).get("token") ?? "";
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const [error, setError] = useState<string | null>(
    token ? null : "This set-up link has no token: open the link exactly as you received it.",
  );
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (password !== confirm) return setError("The two passwords differ.");
    setBusy(true);
    setError(null);
    try {
      const { data, error: failure, response } = await api.POST("/api/auth/setup", { body: { token, password } });
      if (data) {
        history.replaceState(null, "", "/app/");
        onSignedIn(data);
      } else setError(errorMessage(failure, response.status));
    } catch {
      setError(errorMessage(undefined));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="narrow" id="content">
      <h1>Choose your password</h1>
      <form onSubmit={submit}>
        <label for="new-password">Password (at least {MIN_LENGTH} characters)</label>
        <input
          id="new-password"
          type="password"
          autocomplete="new-password"
          minLength={MIN_LENGTH}
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
        <label for="confirm-password">The same password again</label>
        <input
          id="confirm-password"
          type="password"
          autocomplete="new-password"
          minLength={MIN_LENGTH}
          required
          value={confirm}
          onInput={(e) => setConfirm(e.currentTarget.value)}
        />
        {error ? (
          <p class="error" role="alert">
            {error}
          </p>
        ) : null}
        <button type="submit" disabled={busy || !token}>
          Set password and sign in
        </button>
      </form>
    </main>
  );
}
