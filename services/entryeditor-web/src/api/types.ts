// The entry editor's JSON, as services/entryeditor/README.md documents it.

export interface Sense {
  pos: string;
  definition: string;
  examples: string[];
}

export interface Example {
  sentence_id?: number;
  text: string;
}

export interface Collocate {
  word: string;
  pos: string;
  count: number;
  freq?: number;
  pmi?: number;
}

export interface EntrySummary {
  id: number;
  word: string;
  pos: string;
  frequency: number;
  version: number;
  updated_at: string;
}

export interface Entry extends EntrySummary {
  senses: Sense[];
  pos_distribution: Record<string, number>;
  examples: Example[];
  collocates: Collocate[];
  created_at: string;
}

/** What an edit sends: the content fields and the version it was made on. */
export interface EntryEdit {
  word: string;
  pos: string;
  senses: Sense[];
  version: number;
}

export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

export interface FreqResult {
  pattern: string;
  count: number;
  per_million: number;
  tokens: number;
  forms: { word: string; pos: string; freq: number }[];
}

export interface KwicLine {
  sentence_id: number;
  position: number;
  left: string;
  keyword: string;
  pos: string;
  right: string;
}

export interface KwicResult {
  pattern: string;
  window: number;
  count: number;
  lines: KwicLine[];
}

export interface CollocatesResult {
  pattern: string;
  window: number;
  min_count: number;
  measure: string;
  node_freq: number;
  tokens: number;
  collocates: Collocate[];
}

export interface Execution {
  entry: number;
  command: string;
  result: FreqResult | KwicResult | CollocatesResult;
}

export interface FieldDiff {
  field: string;
  identical: boolean;
  qgram_distance: number;
  cosine_similarity: number;
  jaccard_similarity: number;
  a?: unknown;
  b?: unknown;
}

export interface Diff {
  a: { id: number; version: number };
  b: { id: number; version: number };
  identical: boolean;
  changed: string[];
  similarity: number;
  fields: FieldDiff[];
}

export interface Token {
  word: string;
  pos: string;
}

export interface Sentence {
  id: number;
  para: number;
  text: string;
  n_tokens: number;
  tokens: Token[];
}

export interface Neighbours {
  sentence_id: number;
  k: number;
  neighbors: { id: number; text: string; score: number }[];
}
