import { useEffect, useState } from "react";

type Health = { ok: boolean; version: string };

// The first page of Docent: it proves the embedded UI and the API are wired
// together. The document workspace replaces it as the web UI grows.
export function App() {
  const [health, setHealth] = useState<Health | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    fetch("/api/health")
      .then((r) => {
        if (!r.ok) throw new Error(`health check answered ${r.status}`);
        return r.json() as Promise<Health>;
      })
      .then(setHealth)
      .catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)));
  }, []);

  return (
    <main>
      <h1>Docent</h1>
      <p className="lead">Turn a pile of documents into structured data, on your own machine.</p>
      <section>
        <h2>Status</h2>
        {health && (
          <p id="health" data-ok={health.ok}>
            Running, version {health.version}.
          </p>
        )}
        {error && <p className="error">Cannot reach the Docent server: {error}</p>}
        {!health && !error && <p>Checking the server…</p>}
      </section>
      <section>
        <h2>Get started</h2>
        <p>Import documents from a terminal, then list them:</p>
        <pre>{"docent import ~/Documents/invoices\ndocent documents"}</pre>
      </section>
    </main>
  );
}
