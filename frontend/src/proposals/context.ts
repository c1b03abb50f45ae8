// What a proposed call would change, as it is now: the schema version an
// update replaces, the prompt text it rewrites, the current value of a
// patched field, what uses something a delete removes. Fetched once for a
// call that waits for approval (after it ran, "now" is the new state).

import { api } from "../api/routes";
import type { Extraction, WorkingState } from "../api/types";
import { resolvePrompt, resolvePromptRevision, resolveSchema, resolveTag } from "../lib/names";
import { argsObject, valueAt, type SummaryContext } from "./summary";

export interface ProposalEnv {
  /** The document the conversation is about. */
  docId: string;
  workingState: WorkingState | null;
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() ? v.trim() : undefined;
}

function newest(xs: Extraction[]): Extraction | undefined {
  return [...xs].sort((a, b) => (b.created_at ?? "").localeCompare(a.created_at ?? ""))[0];
}

/** The tools whose summary needs something fetched. */
export const NEEDS_CONTEXT = new Set([
  "update_schema",
  "delete_schema",
  "update_prompt",
  "delete_prompt",
  "run_extraction",
  "update_tag",
  "delete_tag",
  "update_extraction_field",
  "update_document",
  "delete_document",
]);

export async function loadProposalContext(tool: string, args: unknown, env: ProposalEnv): Promise<SummaryContext> {
  const a = argsObject(args);
  switch (tool) {
    case "update_schema": {
      const ref = str(a.schema_id);
      return { schema: ref ? await resolveSchema(ref) : null };
    }
    case "delete_schema": {
      const ref = str(a.schema_id);
      const schema = ref ? await resolveSchema(ref) : null;
      if (!schema) return { schema };
      const prompts = await api.listPrompts().catch(() => null);
      return { schema, usedBy: prompts ? { prompts: prompts.filter((p) => p.schema_id === schema.schema_id).map((p) => p.name) } : null };
    }
    case "update_prompt":
    case "delete_prompt": {
      const ref = str(a.prompt_id);
      return { prompt: ref ? await resolvePrompt(ref) : null };
    }
    case "run_extraction": {
      const ref = str(a.prompt_revid) ?? env.workingState?.prompt_revid;
      return { prompt: ref ? await resolvePromptRevision(ref) : null };
    }
    case "update_tag":
      return { tag: str(a.tag_id) ? await resolveTag(str(a.tag_id)!) : null };
    case "delete_tag": {
      const tag = str(a.tag_id) ? await resolveTag(str(a.tag_id)!) : null;
      if (!tag) return { tag };
      const [docs, prompts] = await Promise.all([
        api.listDocuments({ tag_id: tag.id, limit: 1 }).catch(() => null),
        api.listPrompts().catch(() => null),
      ]);
      return {
        tag,
        usedBy: docs && prompts ? { documents: docs.total, prompts: prompts.filter((p) => p.tag_ids?.includes(tag.id)).map((p) => p.name) } : null,
      };
    }
    case "update_extraction_field": {
      const path = str(a.path);
      let x: Extraction | undefined = env.workingState?.extraction ?? undefined;
      if (!x) x = newest(await api.listExtractions(env.docId).catch(() => []));
      if (!path || !x) return { current: null };
      return { current: valueAt(x.value, path) };
    }
    case "update_document":
    case "delete_document": {
      const id = str(a.document_id) ?? env.docId;
      const d = await api.getDocument(id).catch(() => null);
      // The summary's `document` is the current one; another is named through documentName.
      return id === env.docId ? { document: d } : d ? { documentName: (x: string) => (x === id ? d.name : undefined) } : {};
    }
    default:
      return {};
  }
}
