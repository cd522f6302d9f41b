// Upload the 256 KiB payload as fast as VUS connections allow, like the write-up's
// `wrk -c100 -d10 -s postfile.lua`.
//
//   uv run k6 run loadtests/upload.js
//   uv run k6 run -e ENDPOINT=/files/upload/single -e VUS=100 -e DURATION=10s loadtests/upload.js
//   uv run k6 run -e BASE_URL=http://127.0.0.1:8090 -e ENDPOINT=/ingest loadtests/upload.js
//
// Env: BASE_URL (http://localhost:8000), ENDPOINT (/files/upload/stream/async_read_and_disk_write),
// where `{unique}` becomes a name of its own per request (VU and iteration),
// MODE raw|multipart|base64 (default from ENDPOINT: /files/upload/single* is multipart,
// /files/upload/raw/json/base64decode is base64, anything else raw), METHOD (POST),
// API_TOKEN (the stack's bearer token, which every upload needs: the one `docker compose`
// took from your environment or .env, or the one `servelab up` printed; lib/auth.js),
// PAYLOAD_SIZE / PAYLOAD_FILE (lib/payload.js), SUMMARY_JSON (lib/summary.js) and the load
// shape SHAPE, VUS, DURATION, WARMUP, THRESHOLD_FAILED, THRESHOLD_CHECKS (lib/options.js).
import http from 'k6/http';
import { check } from 'k6';
import { authHeaders } from './lib/auth.js';
import { countError } from './lib/errors.js';
import { loadOptions, phase } from './lib/options.js';
import { base64JsonBody, loadPayload, multipartBody, MULTIPART_CONTENT_TYPE } from './lib/payload.js';
import { summaryTarget } from './lib/summary.js';

export { handleSummary } from './lib/summary.js';

export const options = loadOptions({ shape: 'wrk' });

const BASE_URL = __ENV.BASE_URL || 'http://localhost:8000';
const ENDPOINT = __ENV.ENDPOINT || '/files/upload/stream/async_read_and_disk_write';
const METHOD = (__ENV.METHOD || 'POST').toUpperCase();

export function inferMode(endpoint) {
  const path = endpoint.split('?')[0];
  if (path.startsWith('/files/upload/single')) {
    return 'multipart';
  }
  if (path === '/files/upload/raw/json/base64decode') {
    return 'base64';
  }
  return 'raw';
}

const MODE = __ENV.MODE || inferMode(ENDPOINT);

function requestBody(mode, payload) {
  switch (mode) {
    case 'raw':
      return { body: payload, contentType: 'application/octet-stream' };
    case 'multipart':
      return { body: multipartBody(payload), contentType: MULTIPART_CONTENT_TYPE };
    case 'base64':
      return { body: base64JsonBody(payload), contentType: 'application/json' };
    default:
      throw new Error(`MODE must be raw, multipart or base64, not ${JSON.stringify(mode)}`);
  }
}

const URL = `${BASE_URL}${ENDPOINT}`;
summaryTarget(METHOD, BASE_URL, ENDPOINT);
const UNIQUE = URL.includes('{unique}');
const { body, contentType } = requestBody(MODE, loadPayload());
const HEADERS = { 'Content-Type': contentType, ...authHeaders() };

export default function () {
  const tags = { phase: phase() };
  const url = UNIQUE ? URL.replace('{unique}', `${__VU}-${__ITER}`) : URL;
  const res = http.request(METHOD, url, body, { headers: HEADERS, responseType: 'none', tags });
  countError(res, tags);
  check(res, { 'status is 2xx': (r) => r.status >= 200 && r.status < 300 }, tags);
}
