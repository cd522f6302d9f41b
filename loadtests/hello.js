// The write-up 004 hello: GET /hello, a 4045-byte JSON document, as fast as 400 connections
// allow for 30 s, like `wrk -t8 -c400 -d30s http://127.0.0.1:12345/hello` (k6 has no
// threads to set: its VUs are the connections).
//
//   uv run k6 run loadtests/hello.js
//   uv run k6 run -e BASE_URL=http://127.0.0.1:8201 -e VUS=400 -e DURATION=10s -e WARMUP=2s loadtests/hello.js
//   uv run k6 run -e SHAPE=hey -e VUS=1000 loadtests/hello.js    # 1000 connections at once, one request each
//
// Each answer must be a 200 with Content-Type `application/json; charset=utf-8` and a
// Content-Length of exactly 4045; CHECK_BODY=1 also compares every byte (k6 then keeps each
// body, which costs it CPU). Failed requests are counted by kind as wrk's socket errors
// (lib/errors.js).
//
// No token is sent: GET /hello needs none (the files service's and the entry editor's
// writes do: lib/auth.js says where API_TOKEN comes from).
//
// Env: BASE_URL (http://localhost:8000), ENDPOINT (/hello), CHECK_BODY, SUMMARY_JSON
// (lib/summary.js) and the load shape SHAPE (wrk), VUS (400), DURATION (30s), WARMUP,
// THRESHOLD_FAILED, THRESHOLD_CHECKS (lib/options.js).
import http from 'k6/http';
import { check } from 'k6';
import { countError } from './lib/errors.js';
import { loadOptions, phase } from './lib/options.js';
import { summaryTarget } from './lib/summary.js';

export { handleSummary } from './lib/summary.js';

export const options = loadOptions({ shape: 'wrk', vus: 400, duration: '30s' });

const BASE_URL = __ENV.BASE_URL || 'http://localhost:8000';
const ENDPOINT = __ENV.ENDPOINT || '/hello';
const URL = `${BASE_URL}${ENDPOINT}`;
summaryTarget('GET', BASE_URL, ENDPOINT);
const CHECK_BODY = __ENV.CHECK_BODY === '1';

// json.dumps({"code": 0, "message": "success", "data": "ok" * 2000}, ensure_ascii=False)
export const BODY = `{"code": 0, "message": "success", "data": "${'ok'.repeat(2000)}"}`;
export const CONTENT_TYPE = 'application/json; charset=utf-8';

const checks = {
  'status is 200': (r) => r.status === 200,
  'Content-Type is the write-up\'s': (r) => r.headers['Content-Type'] === CONTENT_TYPE,
  'Content-Length is 4045': (r) => parseInt(r.headers['Content-Length'], 10) === BODY.length,
};
if (CHECK_BODY) {
  checks['body is the write-up\'s'] = (r) => r.body === BODY;
}

export default function () {
  const tags = { phase: phase() };
  const res = http.get(URL, { responseType: CHECK_BODY ? 'text' : 'none', tags });
  countError(res, tags);
  check(res, checks, tags);
}
