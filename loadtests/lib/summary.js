// handleSummary for every script: the full summary as JSON to the file named by
// SUMMARY_JSON (when set), and on stdout where the load went, then the measured figures in
// wrk's (or hey's) terms.
import { shape, timed } from './options.js';
import { tokenSet } from './auth.js';
import { COUNTED_STATUSES, ERROR_KINDS, OTHER_STATUS } from './errors.js';

const MEASURED = '{phase:measure}';

let target = null;

// Where the script sends its load, named at the top of the summary: `method` requests to
// `endpoint` (a path, with its query or placeholders) of the service at `baseUrl`. Call it
// in the init context, as loadOptions().
export function summaryTarget(method, baseUrl, endpoint) {
  target = { method, baseUrl, endpoint };
}

function targetLines() {
  if (target === null) {
    throw new Error('call summaryTarget() in the script before the summary');
  }
  return [`  target      ${target.baseUrl}`, `  endpoint    ${target.method} ${target.endpoint}`];
}

function measured(data, name) {
  const metric = data.metrics[`${name}${MEASURED}`];
  return metric ? metric.values : {};
}

function ms(value) {
  return value === undefined ? '-' : `${value.toFixed(2)}ms`;
}

function failedThresholds(data) {
  const failed = [];
  for (const [name, metric] of Object.entries(data.metrics)) {
    for (const [expression, result] of Object.entries(metric.thresholds || {})) {
      if (!result.ok) {
        failed.push(`${name} ${expression}`);
      }
    }
  }
  return failed;
}

// Seconds the measured requests took: the fixed duration of a timed shape (wrk's), or the
// whole run of a counted one (hey's "Total").
function measuredSeconds(data, run) {
  if (timed(run.executor)) {
    return run.durationMs / 1000;
  }
  return data.state.testRunDurationMs / 1000;
}

function describe(run, seconds) {
  if (run.executor === 'constant-arrival-rate') {
    const warmup = run.warmupMs > 0 ? ` after ${run.warmupMs / 1000}s warm-up` : '';
    return `${run.name}: ${run.rate} requests/s (${run.vus}..${run.maxVus} VUs), ${seconds}s measured${warmup}`;
  }
  if (run.executor === 'constant-vus') {
    const warmup = run.warmupMs > 0 ? ` after ${run.warmupMs / 1000}s warm-up` : '';
    return `${run.name}: ${run.vus} VUs, ${seconds}s measured${warmup}`;
  }
  if (run.executor === 'shared-iterations') {
    return `${run.name}: ${run.vus} VUs sharing ${run.iterations} requests, total ${seconds.toFixed(3)}s`;
  }
  return `${run.name}: ${run.vus} VUs x ${run.iterations} request(s), total ${seconds.toFixed(3)}s`;
}

// ab's "Percentage of the requests served within a certain time (ms)".
const AB_PERCENTILES = [50, 66, 75, 80, 90, 95, 98, 99];

function abPercentiles(latency) {
  const rows = AB_PERCENTILES.map((p) => `${p}% ${ms(latency[`p(${p})`])}`);
  return `  served in   ${rows.join('  ')}  100% ${ms(latency.max)}`;
}

// Answers a script judged wrong (errors_wrong_answer: a 2xx that is not the expected
// answer, ab's "Length" failures), where the script counts them.
function wrongAnswers(data) {
  const metric = data.metrics['errors_wrong_answer{phase:measure}'];
  return metric === undefined ? [] : [`  wrong       ${metric.values.count || 0} answer(s) not the expected one`];
}

// The measured non-2xx answers by status, those that came ([[401, 1234], [503, 2]]).
function failedStatuses(data) {
  return [...COUNTED_STATUSES, OTHER_STATUS]
    .map((s) => [s, measured(data, `status_${s}`).count || 0])
    .filter(([, count]) => count > 0);
}

// What a refused token means, when the server answered 401 or 403 (lib/auth.js says where
// the token comes from): a 401 is a token missing from k6's environment or not the stack's,
// a 403 a stack started without one.
function tokenHint(statuses) {
  const came = new Set(statuses.map(([s]) => s));
  const hints = [];
  if (came.has(401)) {
    hints.push(
      tokenSet()
        ? "401 Unauthorized: the API_TOKEN in k6's environment is not the token the stack was started with"
        : "401 Unauthorized: API_TOKEN is not set in k6's environment; export the token the stack was started with",
    );
  }
  if (came.has(403)) {
    hints.push('403 Forbidden: the stack was started without API_TOKEN and refuses every write; start it with one exported');
  }
  return hints.map((hint) => `  token       ${hint}`);
}

export function textSummary(data) {
  const requests = measured(data, 'http_reqs').count || 0;
  const latency = measured(data, 'http_req_duration');
  const failedRate = measured(data, 'http_req_failed').rate || 0;
  const checks = measured(data, 'checks');
  const errors = ERROR_KINDS.map((kind) => `${kind} ${measured(data, `errors_${kind}`).count || 0}`);
  const statuses = failedStatuses(data);
  const dropped = (data.metrics.dropped_iterations || { values: {} }).values.count || 0;
  const run = shape();
  const seconds = measuredSeconds(data, run);
  const failed = failedThresholds(data);
  return [
    ...targetLines(),
    `  ${describe(run, seconds)}`,
    `  requests    ${requests} (${(requests / seconds).toFixed(2)}/s)`,
    `  latency     avg ${ms(latency.avg)}  p50 ${ms(latency['p(50)'])}  p75 ${ms(latency['p(75)'])}` +
      `  p90 ${ms(latency['p(90)'])}  p95 ${ms(latency['p(95)'])}  p99 ${ms(latency['p(99)'])}` +
      `  max ${ms(latency.max)}`,
    `  failed      ${(failedRate * 100).toFixed(2)}%  (${errors.join(', ')}; by status ` +
      `${statuses.length === 0 ? 'none' : statuses.map(([s, count]) => `${s} ${count}`).join(', ')})`,
    ...tokenHint(statuses),
    `  dropped     ${dropped} iteration(s) k6 had no free VU for (whole run)`,
    ...(run.name === 'ab' ? [abPercentiles(latency)] : []),
    ...wrongAnswers(data),
    `  checks      ${checks.rate === undefined ? '-' : `${(checks.rate * 100).toFixed(2)}%`}`,
    `  thresholds  ${failed.length === 0 ? 'ok' : `FAILED: ${failed.join('; ')}`}`,
    '',
  ].join('\n');
}

export function handleSummary(data) {
  const outputs = { stdout: textSummary(data) };
  if (__ENV.SUMMARY_JSON) {
    outputs[__ENV.SUMMARY_JSON] = JSON.stringify(data, null, 1);
  }
  return outputs;
}
