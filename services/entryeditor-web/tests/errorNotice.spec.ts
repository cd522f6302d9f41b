import { describe, expect, it } from 'vitest';
import { mount } from '@vue/test-utils';
import ErrorNotice from '../src/components/ErrorNotice.vue';
import { ApiError } from '../src/api/http';

describe('ErrorNotice', () => {
  it('asks for the API token when a write is refused as unauthenticated', () => {
    const wrapper = mount(ErrorNotice, {
      props: { error: new ApiError(401, 'unauthorized', 'a bearer token is required') },
    });
    expect(wrapper.attributes('role')).toBe('alert');
    expect(wrapper.text()).toContain('needs an API token for changes');
    expect(wrapper.text()).toContain('“API token” field');
  });

  it("shows the server's message for other errors", () => {
    const wrapper = mount(ErrorNotice, {
      props: { error: new ApiError(404, 'not_found', 'No entry 99') },
    });
    expect(wrapper.text()).toBe('No entry 99');
  });
});
