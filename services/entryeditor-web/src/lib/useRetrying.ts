// retryOn503 for a component: reactive state for the template, aborted when the component
// goes away (or a new load starts) so no retry outlives its page.
import { onBeforeUnmount, ref, shallowRef, type Ref, type ShallowRef } from 'vue';
import { Aborted, retryOn503 } from './retry';

export interface Retrying<T> {
  data: ShallowRef<T | null>;
  error: ShallowRef<unknown>;
  /** Seconds until the next try while the service answers 503; null otherwise. */
  waiting: Ref<number | null>;
  load: (fetcher: () => Promise<T>) => Promise<void>;
}

export function useRetrying<T>(): Retrying<T> {
  const data = shallowRef<T | null>(null);
  const error = shallowRef<unknown>(null);
  const waiting = ref<number | null>(null);
  let controller: AbortController | null = null;

  async function load(fetcher: () => Promise<T>): Promise<void> {
    controller?.abort();
    const own = new AbortController();
    controller = own;
    data.value = null;
    error.value = null;
    waiting.value = null;
    try {
      const result = await retryOn503(fetcher, {
        signal: own.signal,
        onWait: (_error, seconds) => {
          waiting.value = seconds;
        },
      });
      if (own === controller) {
        data.value = result;
        waiting.value = null;
      }
    } catch (failure) {
      if (!(failure instanceof Aborted) && own === controller) {
        error.value = failure;
        waiting.value = null;
      }
    }
  }

  onBeforeUnmount(() => controller?.abort());
  return { data, error, waiting, load };
}
