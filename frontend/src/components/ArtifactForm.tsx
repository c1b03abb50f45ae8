// The form that creates or edits an artifact: the kind's inputs, an error
// the server did not tie to one of them at its foot, Save and Cancel.

import { useState, type ReactNode } from "react";
import { errorInput, formErrorField } from "../lib/errors";
import { invalidateNames } from "../lib/names";
import type { ArtifactKind } from "./artifactKind";
import { FieldError } from "./common";

/** Errors by input name; "_form" is the one at the form's foot. */
export type FormErrors = Record<string, string>;

/**
 * Saving an artifact: `save(request)` sends it, refreshes the names links
 * show, and hands the saved item to onSaved; a refusal lands beside the
 * input the server named (one of `fields`), else at the form's foot.
 */
export function useArtifactSave<T>(fields: readonly string[], onSaved: (item: T) => void) {
  const [errors, setErrors] = useState<FormErrors>({});
  const [saving, setSaving] = useState(false);
  const save = async (request: () => Promise<T>) => {
    setSaving(true);
    setErrors({});
    try {
      const saved = await request();
      invalidateNames();
      onSaved(saved);
    } catch (e) {
      setErrors({ [formErrorField(e, fields)]: errorInput(e).message });
    } finally {
      setSaving(false);
    }
  };
  return { errors, setErrors, saving, save };
}

export interface ArtifactFormProps {
  kind: ArtifactKind;
  /** Whether it edits an existing item ("Save new version") or creates one ("Create prompt"). */
  saveLabel: string;
  onSubmit(): void | Promise<void>;
  onCancel(): void;
  saving: boolean;
  /** Save is off while this is false (a schema with problems), besides while saving. */
  canSave?: boolean;
  /** The error at the form's foot. */
  formError?: string;
  wide?: boolean;
  children: ReactNode;
}

export function ArtifactForm({ kind, saveLabel, onSubmit, onCancel, saving, canSave = true, formError, wide, children }: ArtifactFormProps) {
  return (
    <form
      className={wide ? "form wide" : "form"}
      onSubmit={(e) => {
        e.preventDefault();
        void onSubmit();
      }}
      data-testid={`${kind.noun}-form`}
    >
      {children}
      <FieldError error={formError} />
      <div className="row">
        <button type="submit" className="btn primary" disabled={saving || !canSave} data-testid={`${kind.noun}-save`}>
          {saving ? "Saving…" : saveLabel}
        </button>
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** The artifact's name, the first input of every kind's form. */
export function NameField({ kind, value, onChange, error }: { kind: ArtifactKind; value: string; onChange(v: string): void; error?: string }) {
  return (
    <>
      <label>
        Name
        <input value={value} onChange={(e) => onChange(e.target.value)} data-testid={`${kind.noun}-name`} />
      </label>
      <FieldError error={error} />
    </>
  );
}
