import { describe, expect, it } from 'vitest';
import { collapse, render } from '../src/lib/diff';
import type { FieldDiff } from '../src/api/types';

const field = (name: string, identical: boolean): FieldDiff => ({
  field: name,
  identical,
  qgram_distance: identical ? 0 : 4,
  cosine_similarity: identical ? 1 : 0.5,
  jaccard_similarity: identical ? 1 : 0.4,
  ...(identical ? {} : { a: `${name}-a`, b: `${name}-b` }),
});

describe('diff collapsing', () => {
  it('folds each run of identical fields into one row and keeps changed ones apart', () => {
    const rows = collapse([
      field('word', true),
      field('pos', true),
      field('senses', false),
      field('frequency', true),
      field('pos_distribution', true),
      field('examples', false),
      field('collocates', true),
    ]);
    expect(rows.map((r) => (r.kind === 'identical' ? r.fields : r.field.field))).toEqual([
      ['word', 'pos'],
      'senses',
      ['frequency', 'pos_distribution'],
      'examples',
      ['collocates'],
    ]);
  });

  it('keeps two changed fields in a row as two rows', () => {
    const rows = collapse([field('senses', false), field('examples', false)]);
    expect(rows.map((r) => r.kind)).toEqual(['changed', 'changed']);
  });

  it('prints strings as they are and structures as JSON', () => {
    expect(render('必须')).toBe('必须');
    expect(render([{ pos: 'v' }])).toBe('[\n  {\n    "pos": "v"\n  }\n]');
    expect(render(undefined)).toBe('');
  });
});
