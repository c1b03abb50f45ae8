import { lazy, Suspense, useEffect, useRef, useState } from "react";
import { onUnauthorized } from "./api/http";
import { Spinner } from "./components/common";
import { navigate, useRoute, type Route } from "./lib/router";
import { UploadsProvider, useUploads } from "./lib/uploads";
import { useTitle } from "./lib/useTitle";
import DataPage from "./pages/DataPage";
import { DocumentsPage } from "./pages/DocumentsPage";

const DocumentPage = lazy(() => import("./pages/DocumentPage"));
const SchemasPage = lazy(() => import("./pages/SchemasPage"));
const PromptsPage = lazy(() => import("./pages/PromptsPage"));
const TagsPage = lazy(() => import("./pages/TagsPage"));
const SettingsPage = lazy(() => import("./pages/SettingsPage"));
const HistoryPage = lazy(() => import("./pages/HistoryPage"));
const AskPage = lazy(() => import("./pages/AskPage"));
const UsagePage = lazy(() => import("./pages/UsagePage"));
const InboxPage = lazy(() => import("./pages/InboxPage"));

const sections = [
  ["documents", "Documents"],
  ["inbox", "Inbox"],
  ["ask", "Ask Docent"],
  ["schemas", "Schemas"],
  ["prompts", "Prompts"],
  ["tags", "Tags"],
  ["history", "History"],
  ["usage", "Usage"],
  ["settings", "Settings"],
] as const;

/** The window title for a route until its page names itself (a page's useTitle wins). */
function fallbackTitle(route: Route): string | null {
  const [first, second] = route.parts;
  if (first === "documents") return second ? "Document" : "Documents";
  if (first === "data") return second ? "Data" : "Schemas";
  const section = sections.find(([id]) => id === sectionOf(first));
  return section ? section[1] : null;
}

function sectionOf(first: string): string {
  if (first === "schema-revisions" || first === "data") return "schemas";
  if (first === "prompt-revisions") return "prompts";
  return first;
}

function Unauthorized() {
  return (
    <div className="center-screen" data-testid="unauthorized">
      <div className="card narrow">
        <h1>Sign in to Docent</h1>
        <p>This page needs the access link that Docent printed when it started.</p>
        <p>
          Open the link printed by <code>docent --serve</code> in your terminal (it looks like{" "}
          <code>http://127.0.0.1:PORT/?token=…</code>).
        </p>
      </div>
    </div>
  );
}

function DropZone() {
  const { upload } = useUploads();
  const [over, setOver] = useState(false);
  const depth = useRef(0);
  useEffect(() => {
    const hasFiles = (e: DragEvent) => Array.from(e.dataTransfer?.types ?? []).includes("Files");
    const enter = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      depth.current++;
      setOver(true);
    };
    const leave = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      depth.current = Math.max(0, depth.current - 1);
      if (depth.current === 0) setOver(false);
    };
    const overFn = (e: DragEvent) => {
      if (hasFiles(e)) e.preventDefault();
    };
    const drop = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      depth.current = 0;
      setOver(false);
      const files = Array.from(e.dataTransfer?.files ?? []);
      if (files.length) {
        upload(files);
        navigate("#/documents");
      }
    };
    window.addEventListener("dragenter", enter);
    window.addEventListener("dragleave", leave);
    window.addEventListener("dragover", overFn);
    window.addEventListener("drop", drop);
    return () => {
      window.removeEventListener("dragenter", enter);
      window.removeEventListener("dragleave", leave);
      window.removeEventListener("dragover", overFn);
      window.removeEventListener("drop", drop);
    };
  }, [upload]);
  if (!over) return null;
  return (
    <div className="drop-overlay" data-testid="drop-overlay">
      <div>Drop files to add them to Docent</div>
    </div>
  );
}

function Page() {
  const route = useRoute();
  const [first, second] = route.parts;
  switch (first) {
    case "documents":
      return second ? <DocumentPage key={second} docId={second} page={Number(route.query.get("page")) || undefined} /> : <DocumentsPage />;
    case "ask":
      return <AskPage threadId={second} />;
    case "schemas":
      return <SchemasPage id={second} />;
    case "schema-revisions":
      return <SchemasPage revid={second} />;
    case "data":
      return second ? <DataPage key={second} schemaId={second} /> : <SchemasPage />;
    case "prompts":
      return <PromptsPage id={second} />;
    case "prompt-revisions":
      return <PromptsPage revid={second} />;
    case "tags":
      return <TagsPage id={second} />;
    case "history":
      return <HistoryPage />;
    case "usage":
      return <UsagePage />;
    case "inbox":
      return <InboxPage />;
    case "settings":
      return <SettingsPage />;
    default:
      return (
        <div className="page">
          <p>
            Nothing here. <a href="#/documents">Go to your documents</a>.
          </p>
        </div>
      );
  }
}

export function App() {
  const [unauthorized, setUnauthorized] = useState(false);
  const [menuOpen, setMenuOpen] = useState(false);
  const route = useRoute();
  useEffect(() => onUnauthorized(() => setUnauthorized(true)), []);
  // A narrow window's menu closes when a page is chosen, and with Esc.
  useEffect(() => setMenuOpen(false), [route]);
  useEffect(() => {
    if (!menuOpen) return;
    const on = (e: KeyboardEvent) => e.key === "Escape" && setMenuOpen(false);
    window.addEventListener("keydown", on);
    return () => window.removeEventListener("keydown", on);
  }, [menuOpen]);
  useTitle(unauthorized ? "Sign in" : fallbackTitle(route), 0);
  if (unauthorized) return <Unauthorized />;
  const current = sectionOf(route.parts[0]);
  const currentLabel = sections.find(([id]) => id === current)?.[1];
  return (
    <UploadsProvider>
      <div className="app">
        <header className={`topbar${menuOpen ? " menu-open" : ""}`}>
          <a className="brand" href="#/documents">
            <img className="brand-mark" src="./favicon.svg" alt="" width={20} height={20} />
            Docent
          </a>
          <button
            type="button"
            className="btn menu-button"
            aria-expanded={menuOpen}
            aria-controls="main-nav"
            onClick={() => setMenuOpen(!menuOpen)}
            data-testid="nav-menu"
          >
            <span aria-hidden="true">☰</span> {currentLabel ?? "Menu"}
          </button>
          <nav id="main-nav" aria-label="Sections">
            {sections.map(([id, label]) => (
              <a
                key={id}
                href={`#/${id}`}
                className={current === id ? "active" : ""}
                aria-current={current === id ? "page" : undefined}
                onClick={() => setMenuOpen(false)}
                data-testid={`nav-${id}`}
              >
                {label}
              </a>
            ))}
          </nav>
        </header>
        <main className="content">
          <Suspense fallback={<Spinner />}>
            <Page />
          </Suspense>
        </main>
        <DropZone />
      </div>
    </UploadsProvider>
  );
}
