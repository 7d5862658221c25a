// Sign-in, the header with its navigation, and the views (episodes, one episode, dashboard,
// patterns, retrievals, experiments) beside the live ledger.
import { useEffect, useState } from 'preact/hooks';
import { type Api, createApi, forgetKey, type LinkStatus, storedKey, storeKey } from './api.ts';
import { Dashboard } from './dashboard.tsx';
import { EpisodePage } from './episode.tsx';
import { EpisodeList } from './episodes.tsx';
import { ExperimentsPage } from './experiments.tsx';
import { graphql } from './generated/gql.ts';
import { useLedger } from './ledger.ts';
import { LedgerPanel } from './ledger-panel.tsx';
import { PatternsPage } from './patterns.tsx';
import { RetrievalsPage } from './retrievals.tsx';

const VIEWER = graphql(`
  query Viewer { viewer { name } }
`);

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
      const { viewer } = await api.query(VIEWER);
      if (!viewer?.name) throw new Error('no tenant for this key');
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
        <Nav />
        <span class={`link ${status}`} title="The ledger stream, not an episode">
          ledger stream {status}
        </span>
        <span class="muted">tenant {session.tenant}</span>
        <button type="button" onClick={() => signOut()}>
          Sign out
        </button>
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
      <button type="submit">Sign in</button>
      {notice && <p class="alert">{notice}</p>}
      <p class="muted">The key stays in this tab's session storage and is sent only to this server.</p>
    </form>
  );
}

const VIEWS = [
  { href: '#/', label: 'Episodes', match: /^(#\/?)?(\?.*)?$|^#\/episodes/ },
  { href: '#/dashboard', label: 'Dashboard', match: /^#\/dashboard/ },
  { href: '#/patterns', label: 'Patterns', match: /^#\/patterns/ },
  { href: '#/retrievals', label: 'Retrievals', match: /^#\/retrievals/ },
  { href: '#/experiments', label: 'Experiments', match: /^#\/experiments/ },
];

function Nav() {
  const hash = useHash();
  return (
    <nav aria-label="Views">
      {VIEWS.map((v) => (
        <a key={v.href} href={v.href} aria-current={v.match.test(hash) ? 'page' : undefined}>
          {v.label}
        </a>
      ))}
    </nav>
  );
}

function View({ api, hash, changed }: { api: Api; hash: string; changed: string | undefined }) {
  const episodeId = /^#\/episodes\/([\w-]+)$/.exec(hash)?.[1];
  if (episodeId) return <EpisodePage api={api} id={episodeId} />;
  if (hash.startsWith('#/dashboard')) return <Dashboard api={api} changed={changed} />;
  if (hash.startsWith('#/patterns')) return <PatternsPage api={api} />;
  if (hash.startsWith('#/retrievals')) return <RetrievalsPage api={api} />;
  const experiment = /^#\/experiments(?:\/([\w-]+))?$/.exec(hash);
  if (experiment) return <ExperimentsPage api={api} id={experiment[1]} changed={changed} />;
  const session = new URLSearchParams(/^#\/?\?(.*)$/.exec(hash)?.[1] ?? '').get('session') ?? undefined;
  return <EpisodeList key={session ?? ''} api={api} changed={changed} session={session} />;
}

function Monitor({ api }: { api: Api }) {
  const hash = useHash();
  const ledger = useLedger(api);
  const changed = ledger.events.find(
    (e) => e.episodeId || e.type.startsWith('retrieval.') || e.type.startsWith('patterns.') || e.type.startsWith('experiment.'),
  )?.seq;
  return (
    <main>
      <div class="view">
        <View api={api} hash={hash} changed={changed} />
      </div>
      <LedgerPanel {...ledger} />
    </main>
  );
}
