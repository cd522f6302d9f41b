// Screenshots posted for analysis, like write-up 000's
// `ab -n200 -c20 -p health.json -T application/json http://.../analysis/health-code`
// (SHAPE=ab, the default: 20 clients share 200 requests, each on a new connection).
//
//   uv run k6 run loadtests/health-code.js                          # against http://localhost:8000
//   uv run k6 run -e BASE_URL=http://127.0.0.1:8302 -e BODY=raw loadtests/health-code.js
//   uv run k6 run -e USAGE=trip-code -e VUS=4 -e ITERATIONS=40 loadtests/health-code.js
//
// The request is the committed sample loadtests/data/<USAGE>.jpg, sent as the write-up's
// JSON {"base64": "..."} (BODY=json, the default; loadtests/data/health-code.json holds
// the same body for ab itself), as the raw JPEG (BODY=raw) or as the multipart field
// `file` (BODY=multipart). Every answer must be a 200 whose JSON equals the expected
// answer, loadtests/data/<USAGE>.answer.json (ANSWER names another file; ANSWER=first
// expects each VU's first answer instead). A 2xx with any other answer counts as
// errors_wrong_answer, as ab counts an answer of another length as a "Length" failure:
// the write-up's "Failed requests" are those and the non-2xx answers.
//
// No token is sent: the analyses need none (the files service's and the entry editor's
// writes do: lib/auth.js says where API_TOKEN comes from).
//
// Env: BASE_URL (http://localhost:8000), USAGE (health-code), IMAGE, ANSWER, BODY,
// SUMMARY_JSON (lib/summary.js) and the load shape SHAPE (ab), VUS, ITERATIONS,
// MAX_DURATION, THRESHOLD_FAILED, THRESHOLD_CHECKS (lib/options.js).
import http from 'k6/http';
import encoding from 'k6/encoding';
import { check } from 'k6';
import { Counter } from 'k6/metrics';
import { countError } from './lib/errors.js';
import { loadOptions, phase } from './lib/options.js';
import { asciiBytes, multipartBody, MULTIPART_CONTENT_TYPE } from './lib/payload.js';
import { summaryTarget } from './lib/summary.js';

export { handleSummary } from './lib/summary.js';

const BASE_URL = __ENV.BASE_URL || 'http://localhost:8000';
const USAGE = __ENV.USAGE || 'health-code';
const BODY = __ENV.BODY || 'json';
const ENDPOINT = `/analysis/${USAGE}`;
const URL = `${BASE_URL}${ENDPOINT}`;
summaryTarget('POST', BASE_URL, ENDPOINT);

function local(path) {
  return path.startsWith('/') ? path : import.meta.resolve(`./${path}`);
}

const IMAGE = open(local(__ENV.IMAGE || `data/${USAGE}.jpg`), 'b');
const ANSWER_FILE = __ENV.ANSWER || `data/${USAGE}.answer.json`;
const EXPECTED = ANSWER_FILE === 'first' ? null : JSON.parse(open(local(ANSWER_FILE)));

const wrongAnswers = new Counter('errors_wrong_answer');

// The body and its Content-Type, built once per VU so that iterations only send bytes.
export function request(kind, image) {
  if (kind === 'json') {
    return { body: asciiBytes(JSON.stringify({ base64: encoding.b64encode(image) })).buffer, type: 'application/json' };
  }
  if (kind === 'raw') {
    return { body: image, type: 'image/jpeg' };
  }
  if (kind === 'multipart') {
    return { body: multipartBody(image), type: MULTIPART_CONTENT_TYPE };
  }
  throw new Error(`BODY must be json, raw or multipart, not ${JSON.stringify(kind)}`);
}

const REQUEST = request(BODY, IMAGE);

// JSON values compared by content, object keys in any order.
export function same(a, b) {
  if (a === b) {
    return true;
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    return false;
  }
  if (Array.isArray(a) !== Array.isArray(b)) {
    return false;
  }
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) {
    return false;
  }
  return keys.every((key) => Object.prototype.hasOwnProperty.call(b, key) && same(a[key], b[key]));
}

function parsed(body) {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

export const options = loadOptions({ shape: 'ab' });
options.thresholds['errors_wrong_answer{phase:measure}'] = ['count>=0'];

let firstAnswer = null;

export default function () {
  const tags = { phase: phase() };
  const res = http.post(URL, REQUEST.body, { headers: { 'Content-Type': REQUEST.type }, tags });
  countError(res, tags);
  let right = false;
  if (res.status >= 200 && res.status < 300) {
    const answer = parsed(res.body);
    if (EXPECTED === null && firstAnswer === null) {
      firstAnswer = answer;
    }
    right = answer !== undefined && same(answer, EXPECTED === null ? firstAnswer : EXPECTED);
    if (!right) {
      wrongAnswers.add(1, tags);
    }
  }
  check(
    res,
    {
      'status is 200': (r) => r.status === 200,
      'answer is the expected one': () => right,
    },
    tags,
  );
}
