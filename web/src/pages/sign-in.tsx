import { useState } from "preact/hooks";
import { api, errorMessage } from "../api/client";
import type { Me } from "../app";

export function SignInPage({ onSignedIn }: { onSignedIn: (me: Me) => void }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const { data, error: failure, response } = await api.POST("/api/auth/sign-in", { body: { email, password } });
      if (data) onSignedIn(data);
      else setError(errorMessage(failure, response.status));
    } catch {
      setError(errorMessage(undefined));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="narrow" id="content">
      <h1>Sign in</h1>
      <form onSubmit={submit} aria-describedby={error ? "sign-in-error" : undefined}>
        <label for="email">Email</label>
        <input
          id="email"
          type="email"
          autocomplete="username"
          required
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
        <label for="password">Password</label>
        <input
          id="password"
          type="password"
          autocomplete="current-password"
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
        {error ? (
          <p id="sign-in-error" class="error" role="alert">
            {error}
          </p>
        ) : null}
        <button type="submit" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </main>
  );
}
