// Download a stored 256 KiB file as fast as VUS connections allow, like the write-up's
// `wrk -c100 -d10 http://.../files/download/stream/async_read`.
//
//   uv run k6 run loadtests/download.js
//   uv run k6 run -e ENDPOINT='/files/{id}' loadtests/download.js
//   uv run k6 run -e BASE_URL=http://127.0.0.1:8090 -e ENDPOINT=/payload/health.jpg -e NO_UPLOAD=1 loadtests/download.js
//
// setup() stores the payload once with `POST /files` and the endpoint is asked for that
// id: `{id}` in ENDPOINT is replaced by it, otherwise `?id=<id>` is appended. FILE_ID
// names a stored file instead; NO_UPLOAD=1 requests ENDPOINT as it is. Each response
// must be a 200 whose Content-Length is the payload's size (EXPECT_SIZE, where the endpoint
// answers another length: the empty app's 0). The body is read and
// dropped (responseType 'none'): keeping each 256 KiB body as an ArrayBuffer cost k6
// 1.8x more CPU per request on the development machine, and k6 is the bottleneck there.
//
// Env: BASE_URL (http://localhost:8000), ENDPOINT (/files/download/stream/async_read),
// FILE_ID, NO_UPLOAD, EXPECT_SIZE, API_TOKEN (the stack's bearer token, which the upload in
// setup needs: the one `docker compose` took from your environment or .env, or the one
// `servelab up` printed; lib/auth.js), PAYLOAD_SIZE / PAYLOAD_FILE (lib/payload.js),
// SUMMARY_JSON (lib/summary.js) and the load shape SHAPE, VUS, DURATION, WARMUP,
// THRESHOLD_FAILED, THRESHOLD_CHECKS (lib/options.js).
import http from 'k6/http';
import { check } from 'k6';
import exec from 'k6/execution';
import { authHeaders } from './lib/auth.js';
import { countError } from './lib/errors.js';
import { loadOptions, phase } from './lib/options.js';
import { loadPayload } from './lib/payload.js';
import { summaryTarget } from './lib/summary.js';

export { handleSummary } from './lib/summary.js';

export const options = loadOptions({ shape: 'wrk' });

const BASE_URL = __ENV.BASE_URL || 'http://localhost:8000';
const ENDPOINT = __ENV.ENDPOINT || '/files/download/stream/async_read';
const UPLOAD = !__ENV.FILE_ID && __ENV.NO_UPLOAD !== '1';
const PAYLOAD = loadPayload();
const EXPECT_SIZE = __ENV.EXPECT_SIZE ? parseInt(__ENV.EXPECT_SIZE, 10) : PAYLOAD.byteLength;

// The endpoint with a file's id: in place of `{id}`, else as `?id=`; null: as it is.
function withId(endpoint, id) {
  if (id === null) {
    return endpoint;
  }
  if (endpoint.includes('{id}')) {
    return endpoint.replaceAll('{id}', id);
  }
  const separator = endpoint.includes('?') ? '&' : '?';
  return `${endpoint}${separator}id=${id}`;
}

export function targetUrl(endpoint, id) {
  return `${BASE_URL}${withId(endpoint, id === null ? null : encodeURIComponent(id))}`;
}

// The id set-up stores is not known before it runs: `{id}` stands for it.
summaryTarget('GET', BASE_URL, withId(ENDPOINT, __ENV.FILE_ID || (UPLOAD ? '{id}' : null)));

function store() {
  const res = http.post(`${BASE_URL}/files`, PAYLOAD, {
    headers: { 'Content-Type': 'application/octet-stream', ...authHeaders() },
    tags: { phase: 'setup' },
  });
  if (res.status !== 201) {
    exec.test.abort(`POST ${BASE_URL}/files answered ${res.status}: ${res.body || res.error}`);
  }
  const stored = res.json();
  if (stored.size !== PAYLOAD.byteLength) {
    exec.test.abort(`POST /files stored ${stored.size} bytes, sent ${PAYLOAD.byteLength}`);
  }
  return stored.id;
}

export function setup() {
  if (__ENV.FILE_ID) {
    return { url: targetUrl(ENDPOINT, __ENV.FILE_ID) };
  }
  return { url: targetUrl(ENDPOINT, UPLOAD ? store() : null) };
}

export default function (data) {
  const tags = { phase: phase() };
  const res = http.get(data.url, { responseType: 'none', tags });
  countError(res, tags);
  check(
    res,
    {
      'status is 200': (r) => r.status === 200,
      'Content-Length is the expected size': (r) =>
        parseInt(r.headers['Content-Length'], 10) === EXPECT_SIZE,
    },
    tags,
  );
}
