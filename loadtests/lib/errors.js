// Failed requests counted by kind, as wrk reports socket errors (connect, read, write,
// timeout) and non-2xx responses. Kinds follow k6's error codes:
// https://grafana.com/docs/k6/latest/javascript-api/error-codes/
import http from 'k6/http';
import { Counter } from 'k6/metrics';

export const ERROR_KINDS = ['connect', 'read', 'write', 'timeout', 'non_2xx', 'other'];

function range(first, last) {
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}

// The non-2xx answers also counted by status (status_401 ...), so that the summary names
// what non_2xx lumps together: a missing or wrong token's 401, a refused write's 403, a
// proxy's 502 (no upstream), 503 (load shed) and 504 (upstream too slow). k6 makes its
// metrics before the run, so each registered 3xx, 4xx and 5xx status has its counter; any
// other status a server invents (nginx's 499, a CDN's 520) counts as status_other.
export const COUNTED_STATUSES = [
  ...range(300, 308),
  ...range(400, 418),
  ...range(421, 426),
  428,
  429,
  431,
  451,
  ...range(500, 508),
  510,
  511,
];
export const OTHER_STATUS = 'other';

const counters = Object.fromEntries(ERROR_KINDS.map((kind) => [kind, new Counter(`errors_${kind}`)]));
const statuses = Object.fromEntries(
  [...COUNTED_STATUSES, OTHER_STATUS].map((s) => [s, new Counter(`status_${s}`)]),
);

// Only 2xx answers count as successful (k6's default also accepts 3xx), so that
// http_req_failed and the counters below agree.
http.setResponseCallback(http.expectedStatuses({ min: 200, max: 299 }));

const GENERIC = 1000;
const REQUEST_TIMEOUT = 1050;
const BROKEN_PIPE = 1201;
const DIAL_TIMEOUT = 1211;
const RESET_BY_PEER = 1220;

// The kind of failure of a response, or null when it is a 2xx.
export function errorKind(res) {
  if (res.status >= 200 && res.status < 300) {
    return null;
  }
  if (res.status !== 0) {
    return 'non_2xx';
  }
  const code = res.error_code;
  if (code === REQUEST_TIMEOUT || code === DIAL_TIMEOUT) {
    return 'timeout';
  }
  // 11xx: DNS; 1210-1213: dial failed (refused, no file descriptor left, ...).
  if ((code >= 1100 && code < 1200) || (code >= 1210 && code < 1220)) {
    return 'connect';
  }
  const message = String(res.error || '');
  // A connection reset while sending, or closed under a request being written.
  if (code === BROKEN_PIPE || (code === RESET_BY_PEER && message.includes('write'))) {
    return 'write';
  }
  // Reset or closed (EOF) before the whole response arrived.
  if (code === RESET_BY_PEER || (code === GENERIC && message.includes('EOF'))) {
    return 'read';
  }
  return 'other';
}

// Counts the response's failure, if any, under its kind.
export function countError(res, tags) {
  const kind = errorKind(res);
  if (kind !== null) {
    counters[kind].add(1, tags);
  }
  if (kind === 'non_2xx') {
    (statuses[res.status] || statuses[OTHER_STATUS]).add(1, tags);
  }
}
