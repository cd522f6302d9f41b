// The diff page shows each changed field in full and folds each run of identical fields
// into one collapsed row that names them, so a long entry's two or three changes are what
// the eye lands on.
import type { FieldDiff } from '../api/types';

export type DiffRow =
  | { kind: 'changed'; field: FieldDiff }
  | { kind: 'identical'; fields: string[] };

export function collapse(fields: readonly FieldDiff[]): DiffRow[] {
  const rows: DiffRow[] = [];
  for (const field of fields) {
    const last = rows[rows.length - 1];
    if (!field.identical) rows.push({ kind: 'changed', field });
    else if (last?.kind === 'identical') last.fields.push(field.field);
    else rows.push({ kind: 'identical', fields: [field.field] });
  }
  return rows;
}

/** A field's value as the page prints it: strings as they are, the rest as indented JSON. */
export function render(value: unknown): string {
  if (value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}
