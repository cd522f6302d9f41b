import { afterEach, describe, expect, it, vi } from 'vitest';
import { flushPromises, mount, RouterLinkStub } from '@vue/test-utils';
import { ApiError, parseRetryAfter } from '../src/api/http';
import { Aborted, retryOn503 } from '../src/lib/retry';
import SentencePage from '../src/views/SentencePage.vue';

const unavailable = (retryAfter: number | null): ApiError =>
  new ApiError(503, 'compute_unavailable', 'The compute service is unavailable', {}, retryAfter);

describe('Retry-After', () => {
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('3')).toBe(3);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 5_000)).toBe(5);
    expect(parseRetryAfter(null)).toBeNull();
    expect(parseRetryAfter('soon')).toBeNull();
  });
});

describe('retryOn503', () => {
  it('waits Retry-After seconds between tries until the service answers', async () => {
    const load = vi
      .fn<() => Promise<string>>()
      .mockRejectedValueOnce(unavailable(2))
      .mockRejectedValueOnce(unavailable(null))
      .mockResolvedValueOnce('ok');
    const waits: number[] = [];
    const notices: number[] = [];
    const result = await retryOn503(load, {
      signal: new AbortController().signal,
      onWait: (_error, seconds) => notices.push(seconds),
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    expect(result).toBe('ok');
    expect(notices).toEqual([2, 1]);
    expect(waits).toEqual([2000, 1000]);
  });

  it('gives up at once on anything but a 503', async () => {
    const failure = new ApiError(404, 'not_found', 'No sentence 9');
    const onWait = vi.fn();
    await expect(
      retryOn503(() => Promise.reject(failure), { signal: new AbortController().signal, onWait }),
    ).rejects.toBe(failure);
    expect(onWait).not.toHaveBeenCalled();
  });

  it('stops when the page is left', async () => {
    const controller = new AbortController();
    const pending = retryOn503(() => Promise.reject(unavailable(60)), {
      signal: controller.signal,
      onWait: () => controller.abort(),
    });
    await expect(pending).rejects.toBeInstanceOf(Aborted);
  });
});

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json', ...headers },
  });
}

describe('the sentence page during a compute outage', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('says the compute service is unavailable and retries after Retry-After', async () => {
    vi.useFakeTimers();
    let neighbourCalls = 0;
    const fetchMock = vi.fn(async (url: string) => {
      if (url.includes('/neighbors/')) {
        neighbourCalls += 1;
        return neighbourCalls === 1
          ? json(503, { error: { code: 'compute_unavailable', message: 'down' } }, { 'Retry-After': '3' })
          : json(200, { sentence_id: 5, k: 10, neighbors: [{ id: 8, text: '相似的句子。', score: 0.91 }] });
      }
      return json(200, { id: 5, para: 1, text: '一个句子。', n_tokens: 3, tokens: [] });
    });
    vi.stubGlobal('fetch', fetchMock);
    const wrapper = mount(SentencePage, {
      props: { id: 5 },
      global: { stubs: { RouterLink: RouterLinkStub } },
    });
    await flushPromises();
    const notice = wrapper.get('[data-testid="compute-waiting"]');
    expect(notice.text()).toContain('The compute service is unavailable, retrying in 3 s');
    expect(wrapper.find('[role="alert"]').exists()).toBe(false);
    expect(wrapper.text()).toContain('一个句子。');

    await vi.advanceTimersByTimeAsync(2900);
    expect(neighbourCalls).toBe(1);
    await vi.advanceTimersByTimeAsync(200);
    await flushPromises();
    expect(neighbourCalls).toBe(2);
    expect(wrapper.find('[data-testid="compute-waiting"]').exists()).toBe(false);
    expect(wrapper.get('.neighbours').text()).toContain('相似的句子。');
    wrapper.unmount();
  });
});
