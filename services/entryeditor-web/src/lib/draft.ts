// The editable part of an entry as the form holds it: examples one per line.
import type { Entry, EntryEdit } from '../api/types';

export interface SenseDraft {
  pos: string;
  definition: string;
  examples: string;
}

export interface Draft {
  word: string;
  pos: string;
  senses: SenseDraft[];
}

export function toDraft(entry: Entry): Draft {
  return {
    word: entry.word,
    pos: entry.pos,
    senses: entry.senses.map((s) => ({
      pos: s.pos,
      definition: s.definition,
      examples: s.examples.join('\n'),
    })),
  };
}

export function toEdit(draft: Draft, version: number): EntryEdit {
  return {
    word: draft.word.trim(),
    pos: draft.pos.trim(),
    senses: draft.senses.map((s) => ({
      pos: s.pos.trim(),
      definition: s.definition,
      examples: s.examples
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== ''),
    })),
    version,
  };
}
