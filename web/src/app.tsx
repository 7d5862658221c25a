// Sign-in, the header, and the two views (episode list, one episode) beside the live ledger.
import { useEffect, useState } from 'preact/hooks';
import { createApi, forgetKey, storedKey, storeKey, type Api, type LinkStatus } from './api.ts';
import { EpisodePage } from './episode.tsx';
import { EpisodeList } from './episodes.tsx';
import { LedgerPanel } from './ledger-panel.tsx';
import { useLedger } from './ledger.ts';
import { optionalEpisodeSelection } from './optional.ts';

interface Session {
  api: Api;
  tenant: string;
}

function useHash() {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const update = () => setHash(location.hash);
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return hash;
}

export function App() {
  const [session, setSession] = useState<Session | null>(null);
  const [status, setStatus] = useState<LinkStatus>('connecting');
  const [notice, setNotice] = useState<string | null>(null);
  const [checking, setChecking] = useState(storedKey() !== null);

  async function signIn(key: string) {
    setStatus('connecting');
    const api = createApi(key, setStatus);
    try {
      const { viewer } = await api.query<{ viewer: { name: string } | null }>('{ viewer { name } }');
      if (!viewer) throw new Error('no tenant for this key');
      storeKey(key);
      setNotice(null);
      setSession({ api, tenant: viewer.name });
    } catch (err) {
      api.close();
      forgetKey();
      setNotice(`That key was refused (${(err as Error).message}).`);
    } finally {
      setChecking(false);
    }
  }

  const signOut = (message: string | null = null) => {
    session?.api.close();
    forgetKey();
    setSession(null);
    setNotice(message);
  };

  useEffect(() => {
    const key = storedKey();
    if (key) void signIn(key);
  }, []);
  useEffect(() => {
    if (status === 'refused' && session) signOut('The server refused the key; sign in again.');
  }, [status]);

  if (checking) return <p class="muted center">Signing in…</p>;
  if (!session) return <SignIn notice={notice} onKey={signIn} />;
  return (
    <>
      <header>
        <h1>Episodic monitor</h1>
        <span class={`link ${status}`}>{status}</span>
        <span class="muted">tenant {session.tenant}</span>
        <button onClick={() => signOut()}>Sign out</button>
      </header>
      <Monitor api={session.api} />
    </>
  );
}

function SignIn({ notice, onKey }: { notice: string | null; onKey: (key: string) => Promise<void> }) {
  const submit = (event: Event) => {
    event.preventDefault();
    const key = new FormData(event.currentTarget as HTMLFormElement).get('key');
    if (typeof key === 'string' && key.trim()) void onKey(key.trim());
  };
  return (
    <form class="signin card" onSubmit={submit}>
      <h1>Episodic monitor</h1>
      <label>
        API key <input name="key" type="password" autocomplete="off" required />
      </label>
      <button>Sign in</button>
      {notice && <p class="alert">{notice}</p>}
      <p class="muted">The key stays in this tab's session storage and is sent only to this server.</p>
    </form>
  );
}

function Monitor({ api }: { api: Api }) {
  const hash = useHash();
  const ledger = useLedger(api);
  const [optional, setOptional] = useState<string | null>(null);
  useEffect(() => void optionalEpisodeSelection(api.query).then(setOptional), [api]);
  const episodeId = /^#\/episodes\/([\w-]+)$/.exec(hash)?.[1];
  const changed = ledger.events.find((e) => e.episodeId)?.seq;
  return (
    <main>
      <div class="view">
        {episodeId ? optional !== null && <EpisodePage api={api} id={episodeId} optional={optional} /> : <EpisodeList api={api} changed={changed} />}
      </div>
      <LedgerPanel {...ledger} />
    </main>
  );
}
