// The names and the form of one kind of artifact (prompts, schemas, tags):
// the types the artifact components share, kept apart so that none of them
// imports another only for its types.

import type { ComponentType } from "react";

/** What names one kind of artifact in the UI. */
export interface ArtifactKind {
  /** One of them ("prompt"): test ids (prompt-row, prompt-detail, prompt-edit, prompt-save, prompt-form, prompt-revision) and messages. */
  noun: string;
  /** The page's heading and the section of window titles ("Prompts"). */
  title: string;
  /** The route of the list and of an item ("prompts": #/prompts/ID). */
  route: string;
  /** The create button's label ("New prompt"). */
  newLabel: string;
  /** What an empty list says ("No prompts yet."). */
  none: string;
}

/** A kind whose items keep their older versions (prompts, schemas). */
export interface VersionedKind extends ArtifactKind {
  /** The route of one revision ("prompt-revisions"). */
  revisionRoute: string;
  /** The link scheme of a revision ("prompt_rev", as in prompt_rev:ID). */
  revisionRef: string;
}

/** The kind's form: creates an item without `initial`, edits `initial` with it. */
export type ArtifactFormComponent<T> = ComponentType<{ initial?: T; onSaved(item: T): void; onCancel(): void }>;
