import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, request } from '../src/api/http';
import { setApiToken } from '../src/api/token';

describe('the API client', () => {
  let fetchMock: ReturnType<typeof vi.fn>;

  beforeEach(() => {
    fetchMock = vi.fn(async () => new Response('{"ok": true}', { status: 200 }));
    vi.stubGlobal('fetch', fetchMock);
  });

  afterEach(() => {
    setApiToken('');
    vi.unstubAllGlobals();
  });

  const headers = (call: number): Record<string, string> =>
    (fetchMock.mock.calls[call]![1] as RequestInit).headers as Record<string, string>;

  it('asks the same origin under /api', async () => {
    await request('GET', '/entryeditor/entryeditor/47/');
    expect(fetchMock.mock.calls[0]![0]).toBe('/api/entryeditor/entryeditor/47/');
  });

  it('sends the API token on writes only, and keeps it for the tab', async () => {
    setApiToken(' secret ');
    expect(sessionStorage.getItem('entryeditor.apiToken')).toBe('secret');
    await request('GET', '/x');
    await request('PATCH', '/x', { version: 1 });
    expect(headers(0).Authorization).toBeUndefined();
    expect(headers(1).Authorization).toBe('Bearer secret');
    expect(headers(1)['Content-Type']).toBe('application/json');
  });

  it("turns the API's error body into an ApiError with its details", async () => {
    fetchMock.mockResolvedValueOnce(
      new Response(
        JSON.stringify({ error: { code: 'conflict', message: 'stale', current_version: 4 } }),
        { status: 409 },
      ),
    );
    const error = await request('PATCH', '/x', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 409, code: 'conflict', message: 'stale' });
    expect((error as ApiError).details).toEqual({ current_version: 4 });
  });

  it('describes an answer that is not JSON by its status', async () => {
    fetchMock.mockResolvedValueOnce(new Response('<html>', { status: 502, statusText: 'Bad Gateway' }));
    await expect(request('GET', '/x')).rejects.toMatchObject({ status: 502, code: 'http_502' });
  });
});
