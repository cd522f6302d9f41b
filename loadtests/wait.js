// Requests that each wait WAITING_TIME in the server, all sent at once, like write-up 002's
// `hey -n 1000 -c 1000 http://fastapi-uvicorn:8000/sync` (SHAPE=hey, the default: 1000
// connections, one request each) and its Python client that gathers 10 requests at once
// (SHAPE=client).
//
//   uv run k6 run loadtests/wait.js                                   # hey shape against /sync
//   uv run k6 run -e ENDPOINT=/async loadtests/wait.js
//   uv run k6 run -e SHAPE=client -e ENDPOINT=/wait -e BASE_URL=http://127.0.0.1:8103 loadtests/wait.js
//
// Every answer must be a 200 with the service's contract, a JSON object {"wait": seconds}
// (seconds: what the handler spent); with WAITING_TIME set, `wait` must be at least 0.9 x
// that. The end-of-test summary gives hey's figures: total time, requests/s over it, and
// latency (slowest = max).
//
// No token is sent: the waits need none (the files service's and the entry editor's
// writes do: lib/auth.js says where API_TOKEN comes from).
//
// Env: BASE_URL (http://localhost:8000), ENDPOINT (/sync; /async on FastAPI, /wait on
// Flask), WAITING_TIME, SUMMARY_JSON (lib/summary.js) and the load shape SHAPE (hey),
// VUS, ITERATIONS, MAX_DURATION, THRESHOLD_FAILED, THRESHOLD_CHECKS (lib/options.js).
import http from 'k6/http';
import { check } from 'k6';
import { countError } from './lib/errors.js';
import { loadOptions, phase } from './lib/options.js';
import { summaryTarget } from './lib/summary.js';

export { handleSummary } from './lib/summary.js';

export const options = loadOptions({ shape: 'hey' });

const BASE_URL = __ENV.BASE_URL || 'http://localhost:8000';
const ENDPOINT = __ENV.ENDPOINT || '/sync';
const URL = `${BASE_URL}${ENDPOINT}`;
summaryTarget('GET', BASE_URL, ENDPOINT);
const WAITING_TIME = __ENV.WAITING_TIME === undefined ? null : parseFloat(__ENV.WAITING_TIME);
// time.sleep and asyncio.sleep may end a hair early by the server's clock.
const TOLERANCE = 0.9;

// The seconds the server says it waited, or null when the body breaks the contract.
export function waited(body) {
  let parsed;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return null;
  }
  const keys = Object.keys(parsed);
  if (keys.length !== 1 || keys[0] !== 'wait' || typeof parsed.wait !== 'number' || parsed.wait < 0) {
    return null;
  }
  return parsed.wait;
}

export default function () {
  const tags = { phase: phase() };
  const res = http.get(URL, { tags });
  countError(res, tags);
  const seconds = res.status === 200 ? waited(res.body) : null;
  check(
    res,
    {
      'status is 200': (r) => r.status === 200,
      'body is {"wait": seconds}': () => seconds !== null,
      'waited WAITING_TIME': () => WAITING_TIME === null || (seconds !== null && seconds >= TOLERANCE * WAITING_TIME),
    },
    tags,
  );
}
