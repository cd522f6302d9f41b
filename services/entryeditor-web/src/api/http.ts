// One fetch wrapper for the whole app: same-origin /api paths (nginx passes them to the
// entry editor without the prefix), JSON both ways, the API token on writes, and every
// non-2xx answer turned into an ApiError carrying the body's {"error": {...}}.
import { apiToken } from './token';

export const API_PREFIX = '/api';

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  /** The error body's other members: line/column/context, current_version, fields... */
  readonly details: Record<string, unknown>;
  /** Retry-After in seconds, when the answer said when to come back. */
  readonly retryAfter: number | null;

  constructor(
    status: number,
    code: string,
    message: string,
    details: Record<string, unknown> = {},
    retryAfter: number | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = details;
    this.retryAfter = retryAfter;
  }
}

/** Retry-After as seconds: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

async function errorFrom(response: Response): Promise<ApiError> {
  const retryAfter = parseRetryAfter(response.headers.get('Retry-After'));
  let body: unknown = null;
  try {
    body = await response.json();
  } catch {
    // Not JSON (a proxy's HTML page): the status alone describes it.
  }
  const error =
    typeof body === 'object' && body !== null && 'error' in body
      ? (body as { error: unknown }).error
      : null;
  if (typeof error === 'object' && error !== null) {
    const { code, message, ...details } = error as Record<string, unknown>;
    return new ApiError(
      response.status,
      typeof code === 'string' ? code : `http_${response.status}`,
      typeof message === 'string' ? message : response.statusText,
      details,
      retryAfter,
    );
  }
  return new ApiError(
    response.status,
    `http_${response.status}`,
    `${response.status} ${response.statusText}`.trim(),
    {},
    retryAfter,
  );
}

export async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && apiToken.value) headers.Authorization = `Bearer ${apiToken.value}`;
  const init: RequestInit = { method, headers };
  if (body !== undefined) init.body = JSON.stringify(body);
  let response: Response;
  try {
    response = await fetch(`${API_PREFIX}${path}`, init);
  } catch {
    throw new ApiError(0, 'network', 'the server could not be reached; check the connection');
  }
  if (!response.ok) throw await errorFrom(response);
  return (await response.json()) as T;
}
