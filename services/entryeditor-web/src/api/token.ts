// The API token for writes (Authorization: Bearer): kept for the browser tab only
// (sessionStorage), never in the bundle or a cookie.
import { ref } from 'vue';

const KEY = 'entryeditor.apiToken';

function stored(): string {
  try {
    return sessionStorage.getItem(KEY) ?? '';
  } catch {
    return '';
  }
}

export const apiToken = ref(stored());

export function setApiToken(value: string): void {
  apiToken.value = value.trim();
  try {
    if (apiToken.value) sessionStorage.setItem(KEY, apiToken.value);
    else sessionStorage.removeItem(KEY);
  } catch {
    // Storage refused (a private window's quota): the token lasts until the page reloads.
  }
}
