import { describe, expect, it } from 'vitest';
import { mount, RouterLinkStub } from '@vue/test-utils';
import KwicTable from '../src/components/KwicTable.vue';
import { ELLIPSIS, centre, keepEnd, keepStart } from '../src/lib/kwic';
import type { KwicLine } from '../src/api/types';

const line = (left: string, right: string, position = 3): KwicLine => ({
  sentence_id: 7,
  position,
  left,
  keyword: '水',
  pos: 'n',
  right,
});

describe('KWIC centring', () => {
  it('keeps the characters next to the keyword on both sides', () => {
    expect(keepEnd('一二三四五六', 3)).toBe(`${ELLIPSIS}四五六`);
    expect(keepStart('一二三四五六', 3)).toBe(`一二三${ELLIPSIS}`);
  });

  it('leaves short contexts whole', () => {
    const [row] = centre([line('喝', '了')], 10);
    expect(row).toMatchObject({ left: '喝', keyword: '水', right: '了', key: '7:3' });
  });

  it('counts characters, not UTF-16 units', () => {
    expect(keepEnd('a𠀀b', 2)).toBe(`${ELLIPSIS}𠀀b`);
  });

  it('renders the keyword in the middle column, left context right-aligned', () => {
    const wrapper = mount(KwicTable, {
      props: {
        result: { pattern: '水', window: 5, count: 2, lines: [line('我们喝', '很好'), line('', '来了', 9)] },
        width: 2,
      },
      global: { stubs: { RouterLink: RouterLinkStub } },
    });
    const rows = wrapper.findAll('tbody tr');
    expect(rows).toHaveLength(2);
    const cells = rows[0]!.findAll('td');
    expect(cells[0]!.classes()).toContain('left');
    expect(cells[0]!.text()).toBe(`${ELLIPSIS}们喝`);
    expect(cells[1]!.classes()).toContain('keyword');
    expect(cells[1]!.text()).toBe('水/n');
    expect(cells[2]!.text()).toBe('很好');
    expect(wrapper.get('caption').text()).toContain('2 occurrences of 水');
  });
});
