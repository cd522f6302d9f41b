// The entry editor's endpoints, one function each.
import { request } from './http';
import type {
  Diff,
  Entry,
  EntryEdit,
  EntrySummary,
  Execution,
  Neighbours,
  Page,
  Sentence,
} from './types';

const ENTRIES = '/entryeditor/entryeditor';

export const PAGE_SIZE = 20;

export function listEntries(page: number, word: string): Promise<Page<EntrySummary>> {
  const query = new URLSearchParams({ page: String(page), page_size: String(PAGE_SIZE) });
  if (word) query.set('word', word);
  return request('GET', `${ENTRIES}/?${query}`);
}

export function getEntry(id: number): Promise<Entry> {
  return request('GET', `${ENTRIES}/${id}/`);
}

export function createEntry(word: string): Promise<Entry> {
  return request('POST', `${ENTRIES}/`, { word });
}

export function saveEntry(id: number, edit: EntryEdit): Promise<Entry> {
  return request('PATCH', `${ENTRIES}/${id}/`, edit);
}

export function initEntry(id: number, word: string, version?: number): Promise<Entry> {
  const body = version === undefined ? { word, empty: false } : { word, empty: false, version };
  return request('POST', `${ENTRIES}/${id}/init/`, body);
}

export function execute(id: number, command: string): Promise<Execution> {
  return request('POST', `${ENTRIES}/${id}/execute/`, { command });
}

export function diffEntries(a: number, b: number): Promise<Diff> {
  return request('GET', `${ENTRIES}/${a}/diff/${b}/`);
}

export function getSentence(id: number): Promise<Sentence> {
  return request('GET', `/corpus/sentence/${id}/`);
}

export function getNeighbours(id: number, k = 10): Promise<Neighbours> {
  return request('GET', `/corpus/sentence/${id}/neighbors/?k=${k}`);
}
