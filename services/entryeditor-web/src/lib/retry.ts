// A 503 that says when to come back (Retry-After) is a pause, not a failure: the page says
// the service is unavailable and asks again after the given seconds, until it answers,
// fails otherwise, or the page is left (the signal aborts).
import { ApiError } from '../api/http';

export interface RetryOptions {
  /** Called before each wait, with the error and the seconds to wait. */
  onWait: (error: ApiError, seconds: number) => void;
  signal: AbortSignal;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** The wait when Retry-After is absent from a 503 (seconds). */
  fallbackSeconds?: number;
}

export class Aborted extends Error {
  constructor() {
    super('aborted');
    this.name = 'Aborted';
  }
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new Aborted());
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', abort);
      resolve();
    }, ms);
    const abort = (): void => {
      clearTimeout(timer);
      reject(new Aborted());
    };
    signal.addEventListener('abort', abort, { once: true });
  });
}

export function isRetryable(error: unknown): error is ApiError {
  return error instanceof ApiError && error.status === 503;
}

export async function retryOn503<T>(load: () => Promise<T>, options: RetryOptions): Promise<T> {
  const wait = options.sleep ?? sleep;
  for (;;) {
    if (options.signal.aborted) throw new Aborted();
    try {
      return await load();
    } catch (error) {
      if (!isRetryable(error)) throw error;
      const seconds = error.retryAfter ?? options.fallbackSeconds ?? 1;
      options.onWait(error, seconds);
      await wait(Math.max(seconds, 0.1) * 1000, options.signal);
    }
  }
}
