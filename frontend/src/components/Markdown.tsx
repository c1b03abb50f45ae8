// Assistant text as markdown: GFM tables, code blocks, coloured ```diff
// blocks, resource links (schema:ID, doc:ID#page=N, ...) that navigate
// inside the app instead of leaving it, and, when asked, the citation
// markers of an answer (`[1]`, `[1, 2]`) drawn by the caller.

import { memo, type ReactNode } from "react";
import ReactMarkdown, { defaultUrlTransform, type Components } from "react-markdown";
import remarkGfm from "remark-gfm";
import { parseMarkers } from "../ask/citations";
import { useArtifactNames } from "../lib/names";
import { resourceTarget } from "../lib/router";

export interface MarkdownProps {
  text: string;
  /** Called for doc:ID#page=N links; return true when handled (e.g. the current document's viewer turned the page). */
  onDocLink?: (docId: string, page?: number) => boolean;
  /**
   * Draws a citation marker (the numbers it cites, and its text as
   * written); without it markers stay text. Markers in code and inside
   * links stay text too.
   */
  cite?: (numbers: number[], raw: string) => ReactNode;
}

/** The element a marker becomes between the markdown tree and React. */
const CITE_ELEMENT = "docent-cite";

interface MdNode {
  type: string;
  value?: string;
  children?: MdNode[];
  data?: { hName?: string; hProperties?: Record<string, string> };
}

/**
 * A remark plugin: each marker in the text nodes of the markdown tree
 * becomes a node of its own that mdast-util-to-hast turns into a
 * CITE_ELEMENT element (data.hName) carrying the numbers.
 */
function remarkCitationMarkers() {
  const walk = (node: MdNode) => {
    if (!node.children || node.type === "link" || node.type === "linkReference") return;
    node.children = node.children.flatMap((child): MdNode[] => {
      if (child.type !== "text" || !child.value) {
        walk(child);
        return [child];
      }
      const parts = parseMarkers(child.value);
      if (parts.length === 1 && "text" in parts[0]) return [child];
      return parts.map((p) =>
        "text" in p
          ? { type: "text", value: p.text }
          : { type: "text", value: p.raw, data: { hName: CITE_ELEMENT, hProperties: { dataCite: p.cite.join(",") } } },
      );
    });
  };
  return (tree: MdNode) => walk(tree);
}

function urlTransform(url: string): string {
  return resourceTarget(url) ? url : defaultUrlTransform(url);
}

function DiffBlock({ code }: { code: string }) {
  const lines = code.replace(/\n$/, "").split("\n");
  return (
    <pre className="code diff">
      {lines.map((l, i) => {
        const cls = l.startsWith("+") && !l.startsWith("+++") ? "add" : l.startsWith("-") && !l.startsWith("---") ? "del" : l.startsWith("@@") ? "hunk" : "";
        return (
          <span key={i} className={"diff-line " + cls}>
            {l || " "}
            {"\n"}
          </span>
        );
      })}
    </pre>
  );
}

const RESOURCE = /^(schema_rev|schema|prompt_rev|prompt|tag|doc):([^#\s]+)/;

/**
 * A resource link's text: when the model labelled it with the bare id (or
 * the link itself), the artifact's name ("Invoice v2") instead.
 */
function ResourceLabel({ href, children }: { href: string; children: ReactNode }) {
  const names = useArtifactNames();
  const m = RESOURCE.exec(href.trim());
  const text = textOf(children).trim();
  if (!m || (text !== m[2] && text !== href.trim() && text !== `${m[1]}:${m[2]}`)) return <>{children}</>;
  const [, kind, id] = m;
  const label = kind.startsWith("schema")
    ? names.schema(id)?.label
    : kind.startsWith("prompt")
      ? names.prompt(id)?.label
      : kind === "tag"
        ? names.tag(id)?.name
        : names.document(id)?.name;
  return <>{label ?? children}</>;
}

function textOf(children: ReactNode): string {
  if (typeof children === "string") return children;
  if (Array.isArray(children)) return children.map(textOf).join("");
  return "";
}

export const Markdown = memo(function Markdown({ text, onDocLink, cite }: MarkdownProps) {
  const components: Components & Record<string, unknown> = {
    a({ href, children }) {
      const target = href ? resourceTarget(href) : null;
      if (target) {
        return (
          <a
            href={target.hash}
            className="resource-link"
            title={href}
            onClick={(e) => {
              if (target.docId && onDocLink?.(target.docId, target.page)) e.preventDefault();
            }}
          >
            <ResourceLabel href={href!}>{children}</ResourceLabel>
          </a>
        );
      }
      return (
        <a href={href} target="_blank" rel="noreferrer noopener">
          {children}
        </a>
      );
    },
    pre({ children }) {
      return <>{children}</>;
    },
    code({ className, children }) {
      const lang = /language-(\S+)/.exec(className ?? "")?.[1];
      const code = textOf(children);
      const block = !!lang || code.includes("\n");
      if (!block) return <code className="inline-code">{children}</code>;
      if (lang === "diff") return <DiffBlock code={code} />;
      return (
        <pre className="code">
          <code>{code.replace(/\n$/, "")}</code>
        </pre>
      );
    },
    table({ children }) {
      return (
        <div className="table-scroll">
          <table>{children}</table>
        </div>
      );
    },
  };
  if (cite) {
    components[CITE_ELEMENT] = (props: Record<string, unknown>) => {
      const ns = String(props["data-cite"] ?? "")
        .split(",")
        .map(Number)
        .filter((n) => Number.isInteger(n) && n > 0);
      return <>{cite(ns, textOf(props.children as ReactNode))}</>;
    };
  }
  return (
    <div className="markdown">
      <ReactMarkdown remarkPlugins={cite ? [remarkGfm, remarkCitationMarkers] : [remarkGfm]} urlTransform={urlTransform} components={components as Components}>
        {text}
      </ReactMarkdown>
    </div>
  );
});
