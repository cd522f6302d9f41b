import { describe, expect, it } from 'vitest';
import { mount } from '@vue/test-utils';
import CommandError from '../src/components/CommandError.vue';
import { commandPosition, locate } from '../src/lib/location';

describe('the parser error at its line and column', () => {
  it('splits the line at the column the API names (1-based)', () => {
    const where = locate('kwic(pattern=水, window=x)', 1, 24);
    expect(where.before).toBe('kwic(pattern=水, window=');
    expect(where.at).toBe('x');
    expect(where.after).toBe(')');
  });

  it('marks a blank past the end of the line (the parser wanted more)', () => {
    expect(locate('freq(', 1, 6)).toMatchObject({ before: 'freq(', at: ' ', after: '' });
  });

  it('reads line and column from the error body only when both are numbers', () => {
    expect(commandPosition({ line: 2, column: 5, context: '' })).toEqual([2, 5]);
    expect(commandPosition({ fields: {} })).toBeNull();
  });

  it('shows the message with its position and marks the character on the right line', () => {
    const wrapper = mount(CommandError, {
      props: {
        command: 'kwic(\n  pattern=水,\n  window=x)',
        message: "window: expected an integer from 1 to 20, got 'x'",
        line: 3,
        column: 10,
      },
    });
    expect(wrapper.attributes('role')).toBe('alert');
    expect(wrapper.text()).toContain("Line 3, column 10: window: expected an integer");
    expect(wrapper.get('[data-testid="error-mark"]').text()).toBe('x');
    expect(wrapper.get('pre').text()).toBe('kwic(\n  pattern=水,\n  window=x)');
  });
});
