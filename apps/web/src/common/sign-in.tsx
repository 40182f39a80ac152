import { type FormEvent, useState } from 'react';
import { messageOf, signIn } from './api.ts';
import { Feedback } from './feedback.tsx';

/** Sign-in with an API key: the page exchanges it for an HTTP-only session cookie and keeps no copy. */
export function SignIn(props: { readonly onSignedIn: () => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await signIn(key.trim());
      setKey('');
      props.onSignedIn();
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main className="sign-in">
      <h1>Sign in to toolbus</h1>
      <form onSubmit={submit}>
        <label htmlFor="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autoComplete="off"
          value={key}
          onChange={(event) => setKey(event.target.value)}
          placeholder="tb_…"
          required
        />
        <button type="submit" disabled={busy || !key.trim()}>
          Sign in
        </button>
        <Feedback error={error} />
      </form>
      <p className="hint">An admin creates keys (toolbus serve --auth api-keys prints the first one).</p>
    </main>
  );
}
