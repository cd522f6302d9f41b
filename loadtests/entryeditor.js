// Write-up 003: the entry editor and corpus API (Django on uWSGI behind nginx), under
// vegeta's constant rate (100, 200, 500, 1000 requests/s for 5 s) and, for the slow
// endpoints, boom's constant concurrency (10, 20, 50, 100 connections).
//
//   uv run k6 run -e BASE_URL=http://127.0.0.1:8401 loadtests/entryeditor.js                 # list at 100/s
//   uv run k6 run -e BASE_URL=http://127.0.0.1:8401 -e NAME=detail -e RATE=500 loadtests/entryeditor.js
//   uv run k6 run -e BASE_URL=http://127.0.0.1:8401 -e NAME=init -e VUS=20 loadtests/entryeditor.js  # boom
//   uv run k6 run -e BASE_URL=http://127.0.0.1:7070 -e NAME=static -e RATE=1000 loadtests/entryeditor.js
//
// NAME picks one of the write-up's requests (ENDPOINTS below, its paths and bodies); each
// brings its default shape: vegeta for the fast ones, boom for init, diff and get_pmi, as
// the write-up measured them. ENDPOINT, METHOD and BODY override the preset's request.
// static and static_bundle are the web front end's files on its own nginx (compose service
// entryeditor-web, :7070, as the write-up's first table): index.html, and the main script it
// names, found at setup by reading index.html (its name carries a hash of its content),
// both asked for as a browser does (Accept-Encoding: gzip) and checked to come gzipped
// (nginx sends the build's .gz files).
// static_css is the browsable API's stylesheet from the API's nginx (/static/).
// Each answer must be a 2xx with a JSON body (the files: their own type). A load-shed
// answer (nginx's fast 503) is a failure like any other non-2xx; the summary also counts the
// failed answers by status (401, 503, ...), timeouts (TIMEOUT, vegeta's default 30 s) and,
// for vegeta's shape, the requests k6 could not start for want of a free VU (dropped
// iterations).
//
// Env: BASE_URL (http://localhost:8000), NAME (list), ENDPOINT, METHOD, BODY, TIMEOUT (30s),
// API_TOKEN (the stack's bearer token, which the writes need: the one `docker compose` took
// from your environment or .env, or the one `servelab up` printed; lib/auth.js), SUMMARY_JSON
// (lib/summary.js) and the load shape SHAPE, RATE (100), VUS, MAX_VUS, DURATION (5s), WARMUP,
// THRESHOLD_FAILED, THRESHOLD_CHECKS (lib/options.js).
import http from 'k6/http';
import { check } from 'k6';
import { authHeaders } from './lib/auth.js';
import { countError } from './lib/errors.js';
import { loadOptions, phase } from './lib/options.js';
import { summaryTarget } from './lib/summary.js';

export { handleSummary } from './lib/summary.js';

const WORD = '水';

// The write-up's requests. get_instance, get_count and get_pmi take the word as a query
// parameter (services/entryeditor/README.md); the write-up does not print its own.
export const ENDPOINTS = {
  static: { path: '/', type: 'text/html', gzip: true },
  static_bundle: { script: true, type: 'application/javascript', gzip: true },
  static_css: { path: '/static/rest_framework/css/default.css', type: 'text/css' },
  list: { path: '/entryeditor/entryeditor/' },
  detail: { path: '/entryeditor/entryeditor/47' },
  execute: {
    method: 'POST',
    path: '/entryeditor/entryeditor/47/execute/',
    body: { command: `freq(pattern=${WORD})` },
  },
  init: {
    method: 'POST',
    path: '/entryeditor/entryeditor/51/init/',
    body: { word: '必须', empty: 'false' },
    shape: 'boom',
  },
  diff: { path: '/entryeditor/entryeditor/45/diff/22/', shape: 'boom' },
  sentence: { path: '/corpus/sentence/1000' },
  neighbors: { path: '/corpus/sentence/1000/neighbors/' },
  get_instance: { path: `/corpus/statistics/get_instance/?word=${encodeURIComponent(WORD)}` },
  get_count: { path: `/corpus/statistics/get_count/?word=${encodeURIComponent(WORD)}` },
  get_pmi: { path: `/corpus/statistics/get_pmi/?word=${encodeURIComponent(WORD)}`, shape: 'boom' },
};

const NAME = __ENV.NAME || 'list';
const preset = ENDPOINTS[NAME];
if (preset === undefined) {
  throw new Error(`NAME must be one of ${Object.keys(ENDPOINTS).join(', ')}, not ${JSON.stringify(NAME)}`);
}

const SHAPE_DEFAULTS = {
  vegeta: { shape: 'vegeta', rate: 100, duration: '5s', vus: 50, max_vus: 1000 },
  boom: { shape: 'boom', vus: 10, duration: '5s' },
};

export const options = loadOptions(SHAPE_DEFAULTS[preset.shape || 'vegeta']);

const BASE_URL = __ENV.BASE_URL || 'http://localhost:8000';
const METHOD = __ENV.METHOD || preset.method || 'GET';
const ENDPOINT = __ENV.ENDPOINT || preset.path;
const URL = `${BASE_URL}${ENDPOINT}`;
// static_bundle's path is read from index.html at set-up.
summaryTarget(METHOD, BASE_URL, ENDPOINT || '{the script / names}');
const BODY = __ENV.BODY !== undefined ? __ENV.BODY : preset.body && JSON.stringify(preset.body);
const TYPE = preset.type || 'application/json';
const PARAMS = {
  headers: {
    ...(BODY ? { 'Content-Type': 'application/json' } : {}),
    ...(preset.gzip ? { 'Accept-Encoding': 'gzip' } : {}),
    ...authHeaders(),
  },
  timeout: __ENV.TIMEOUT || '30s',
  responseType: 'none', // the checks read headers only; keeping bodies costs k6 CPU
};

const checks = {
  'status is 2xx': (r) => r.status >= 200 && r.status < 300,
  [`Content-Type is ${TYPE}`]: (r) => String(r.headers['Content-Type'] || '').startsWith(TYPE),
  ...(preset.gzip ? { 'sent gzipped': (r) => r.headers['Content-Encoding'] === 'gzip' } : {}),
};

// index.html's first module script: <script type="module" crossorigin src="/assets/index-....js">.
const SCRIPT_SRC = /<script\b[^>]*\bsrc="([^"]+\.js)"/;

export function setup() {
  if (!preset.script || __ENV.ENDPOINT) return { url: URL };
  const index = http.get(`${BASE_URL}/`);
  const found = index.status === 200 && SCRIPT_SRC.exec(String(index.body));
  if (!found) {
    throw new Error(`${BASE_URL}/ (status ${index.status}) names no script: is this the web front end?`);
  }
  return { url: `${BASE_URL}${found[1]}` };
}

export default function (data) {
  const tags = { phase: phase() };
  const res = http.request(METHOD, data.url, BODY || null, { ...PARAMS, tags });
  countError(res, tags);
  check(res, checks, tags);
}
