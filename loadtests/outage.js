// An outage drill (`servelab outage <drill>`, loadtests/outage/*.toml): requests at a
// constant rate (vegeta's shape) while the runner kills one service of the stack and starts
// it again. Every answer is recorded in the `outage_answer` metric (its duration, stamped
// when it arrived, tagged with its status and whether it carried Retry-After), which the
// runner reads from k6's CSV output to draw the timeline.
//
//   uv run k6 run -e BASE_URL=http://127.0.0.1:8401 -e ENDPOINT=/corpus/sentence/1000/neighbors/ \
//                 -e RATE=50 -e DURATION=25s --out csv=answers.csv loadtests/outage.js
//
// A good answer is a 2xx, or during the outage a fast 503 with Retry-After and a JSON body
// (the checks); anything else (a 502, a timeout, a 503 without Retry-After) fails them.
// The checks, not k6's failed rate, judge the run: the 503s the drill wants count as failed
// requests, so only THRESHOLD_CHECKS (1) applies by default and k6 exits 99 on a bad answer.
//
// No token is sent: the drills' requests need none (the files service's and the entry editor's
// writes do: lib/auth.js says where API_TOKEN comes from).
//
// Env: BASE_URL, ENDPOINT, METHOD (GET), BODY_FILE (a file under loadtests/ sent as the body)
// with its CONTENT_TYPE, NO_REUSE (1: a new connection per request; kept alive, Go's client
// sends a GET again when its connection breaks before the answer), TIMEOUT (5s), SUMMARY_JSON (lib/summary.js) and the load shape
// (lib/options.js; vegeta by default: RATE, DURATION, VUS, MAX_VUS), THRESHOLD_FAILED (1),
// THRESHOLD_CHECKS (1).
import http from 'k6/http';
import { check } from 'k6';
import { Trend } from 'k6/metrics';
import { countError } from './lib/errors.js';
import { loadOptions, phase } from './lib/options.js';
import { summaryTarget } from './lib/summary.js';

export { handleSummary } from './lib/summary.js';

export const options = loadOptions({
  shape: 'vegeta',
  rate: 50,
  duration: '25s',
  vus: 50,
  max_vus: 500,
  threshold_failed: 1,
});
if (__ENV.NO_REUSE === '1') options.noConnectionReuse = true;

const BASE_URL = __ENV.BASE_URL || 'http://localhost:8000';
const ENDPOINT = __ENV.ENDPOINT || '/';
const URL = `${BASE_URL}${ENDPOINT}`;
const METHOD = __ENV.METHOD || 'GET';
summaryTarget(METHOD, BASE_URL, ENDPOINT);
const BODY = __ENV.BODY_FILE ? open(import.meta.resolve(`./${__ENV.BODY_FILE}`), 'b') : null;
const HEADERS = __ENV.CONTENT_TYPE ? { 'Content-Type': __ENV.CONTENT_TYPE } : {};
const PARAMS = { timeout: __ENV.TIMEOUT || '5s', headers: HEADERS };
const answers = new Trend('outage_answer', true);

export default function () {
  const tags = { phase: phase() };
  const res = http.request(METHOD, URL, BODY, { ...PARAMS, tags });
  countError(res, tags);
  const retryAfter = Boolean(res.headers['Retry-After']);
  // Without an answer, k6's error code and message say why (refused, reset, timeout).
  const failure = res.error_code ? { error_code: String(res.error_code), error: res.error } : {};
  answers.add(res.timings.duration, { status: String(res.status), retry_after: retryAfter ? 'yes' : 'no', ...failure });
  const json = String(res.headers['Content-Type'] || '').startsWith('application/json');
  check(res, {
    'a 2xx, or a 503 with Retry-After': (r) => (r.status >= 200 && r.status < 300) || (r.status === 503 && retryAfter),
    'a JSON body': () => json,
  }, tags);
}
