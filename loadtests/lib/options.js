// The load shapes of the write-ups' tools, as k6 executors. SHAPE picks one (each script
// has its own default) and the other variables override its numbers:
//
//   wrk     `wrk -c VUS -d DURATION`: VUS connections send requests back to back for
//           DURATION (constant-vus); requests in the first WARMUP are left out.
//   hey     `hey -n VUS*ITERATIONS -c VUS`: VUS connections opened at once, each sending
//           ITERATIONS requests, until all are answered (per-vu-iterations).
//   client  write-up 002's Python client: 10 requests gathered at once (asyncio.gather),
//           one connection each; per-vu-iterations with VUS=10.
//   vegeta  `vegeta attack -rate RATE -duration DURATION`: RATE requests started every second
//           whatever the answers take (constant-arrival-rate), from VUS pre-allocated VUs and
//           up to MAX_VUS; a request k6 had no free VU for is a dropped iteration.
//   boom    `boom -c VUS`: VUS connections back to back for DURATION (constant-vus).
//   ab      `ab -n ITERATIONS -c VUS`: VUS clients share ITERATIONS requests in all
//           (shared-iterations), each request on a new connection, as ab sends them
//           without -k (noConnectionReuse).
//
// What fails the run (k6 then exits with 99): by default a single failed request (a
// connection error, a timeout or a non-2xx answer: http_req_failed) or a single failed
// check (a wrong answer) in the measured phase, so that a plain `k6 run` against a service
// that is down or answers wrongly says so. THRESHOLD_FAILED (the highest rate of failed
// requests that passes; default 0) and THRESHOLD_CHECKS (the lowest rate of passed checks
// that passes; default 1) relax them: `servelab bench` passes 1 and 0, as its cells record
// errors as data (a load-shedding nginx's 503s, an overloaded server's timeouts).
//
// Env: SHAPE, VUS, DURATION, WARMUP (wrk only; 0s), ITERATIONS, MAX_DURATION (hey, ab and
// client: the run is stopped after it; 10m), RATE and MAX_VUS (vegeta), THRESHOLD_FAILED,
// THRESHOLD_CHECKS.
import exec from 'k6/execution';
import { COUNTED_STATUSES, ERROR_KINDS, OTHER_STATUS } from './errors.js';

const UNITS = { ms: 1, s: 1000, m: 60000, h: 3600000 };

export function parseDuration(text) {
  const parts = String(text).match(/(\d+(?:\.\d+)?)(ms|s|m|h)/g);
  if (parts === null || parts.join('') !== String(text)) {
    throw new Error(`bad duration ${JSON.stringify(text)} (use e.g. 10s, 500ms, 1m30s)`);
  }
  return parts.reduce((total, part) => {
    const [, value, unit] = part.match(/(\d+(?:\.\d+)?)(ms|s|m|h)/);
    return total + parseFloat(value) * UNITS[unit];
  }, 0);
}

export const SHAPES = {
  wrk: { executor: 'constant-vus', vus: 100, duration: '10s' },
  hey: { executor: 'per-vu-iterations', vus: 1000, iterations: 1 },
  client: { executor: 'per-vu-iterations', vus: 10, iterations: 1 },
  vegeta: { executor: 'constant-arrival-rate', rate: 100, duration: '5s', vus: 50, max_vus: 1000 },
  boom: { executor: 'constant-vus', vus: 10, duration: '5s' },
  ab: { executor: 'shared-iterations', vus: 20, iterations: 200, noConnectionReuse: true },
};

// Shapes that run for a fixed time (with an optional warm-up) rather than a fixed count.
export function timed(executor) {
  return executor === 'constant-vus' || executor === 'constant-arrival-rate';
}

// The shape in force: `defaults` (the script's) under the environment's settings.
export function resolveShape(defaults, env) {
  const name = env.SHAPE || defaults.shape || 'wrk';
  const base = SHAPES[name];
  if (base === undefined) {
    throw new Error(`SHAPE must be one of ${Object.keys(SHAPES).join(', ')}, not ${JSON.stringify(name)}`);
  }
  const own = defaults.shape === undefined || defaults.shape === name ? defaults : {};
  const pick = (key, fallback) => env[key] || own[key.toLowerCase()] || base[key.toLowerCase()] || fallback;
  const shape = {
    name,
    executor: base.executor,
    vus: parseInt(pick('VUS'), 10),
    warmupMs: 0,
    durationMs: 0,
    iterations: 0,
    maxDurationMs: 0,
    rate: 0,
    maxVus: 0,
  };
  if (timed(base.executor)) {
    shape.durationMs = parseDuration(pick('DURATION'));
    shape.warmupMs = parseDuration(pick('WARMUP', '0s'));
  } else {
    if (env.WARMUP && parseDuration(env.WARMUP) > 0) {
      throw new Error(`WARMUP applies to the wrk shape only, not to ${name}`);
    }
    shape.iterations = parseInt(pick('ITERATIONS'), 10);
    shape.maxDurationMs = parseDuration(pick('MAX_DURATION', '10m'));
  }
  if (base.executor === 'constant-arrival-rate') {
    shape.rate = parseInt(pick('RATE'), 10);
    shape.maxVus = Math.max(shape.vus, parseInt(pick('MAX_VUS'), 10));
  }
  return shape;
}

const MEASURED = '{phase:measure}';

// A rate from the environment (or the script's default), checked so that a typo is an
// error rather than a threshold k6 cannot parse.
function rate(name, fallback) {
  const text = __ENV[name] ?? String(fallback);
  const value = Number(text);
  if (text.trim() === '' || !(value >= 0 && value <= 1)) {
    throw new Error(`${name} must be a rate from 0 to 1, not ${JSON.stringify(text)}`);
  }
  return value;
}

// The failed-request and check thresholds (above); `defaults` are the script's own
// (threshold_failed, threshold_checks). Thresholds that cannot fail still make k6 report
// the other measured sub-metrics in the summary.
function thresholds(defaults) {
  const failed = rate('THRESHOLD_FAILED', defaults.threshold_failed ?? 0);
  const checks = rate('THRESHOLD_CHECKS', defaults.threshold_checks ?? 1);
  const result = {
    [`http_reqs${MEASURED}`]: ['count>=0'],
    [`http_req_duration${MEASURED}`]: ['max>=0'],
    [`http_req_failed${MEASURED}`]: [`rate<=${failed}`],
    [`checks${MEASURED}`]: [`rate>=${checks}`],
  };
  for (const kind of ERROR_KINDS) {
    result[`errors_${kind}${MEASURED}`] = ['count>=0'];
  }
  for (const status of [...COUNTED_STATUSES, OTHER_STATUS]) {
    result[`status_${status}${MEASURED}`] = ['count>=0'];
  }
  result.dropped_iterations = ['count>=0'];
  return result;
}

function scenario(shape) {
  if (shape.executor === 'constant-arrival-rate') {
    return {
      executor: shape.executor,
      rate: shape.rate,
      timeUnit: '1s',
      duration: `${shape.warmupMs + shape.durationMs}ms`,
      preAllocatedVUs: shape.vus,
      maxVUs: shape.maxVus,
    };
  }
  if (shape.executor === 'constant-vus') {
    return { executor: shape.executor, vus: shape.vus, duration: `${shape.warmupMs + shape.durationMs}ms` };
  }
  return {
    executor: shape.executor,
    vus: shape.vus,
    iterations: shape.iterations,
    maxDuration: `${shape.maxDurationMs}ms`,
  };
}

let current = null;

// The shape of this run (set by loadOptions in the init context).
export function shape() {
  if (current === null) {
    throw new Error('call loadOptions() in the script before using the shape');
  }
  return current;
}

// k6 options for the script's default shape and thresholds, e.g.
// loadOptions({ shape: 'wrk', vus: 400, duration: '30s' }).
export function loadOptions(defaults = {}) {
  current = resolveShape(defaults, __ENV);
  return {
    scenarios: { [current.name]: scenario(current) },
    // ab's percentile table (50 66 75 80 90 95 98 99 100) is a superset of the others'.
    summaryTrendStats: ['avg', 'min', 'med', 'p(50)', 'p(66)', 'p(75)', 'p(80)', 'p(90)', 'p(95)', 'p(98)', 'p(99)', 'max'],
    noConnectionReuse: SHAPES[current.name].noConnectionReuse === true,
    thresholds: thresholds(defaults),
  };
}

// The tag for a request sent now: `warmup` during the first WARMUP of the run, then `measure`.
// vegeta's shape counts by schedule instead: the first RATE x WARMUP iterations are the
// warm-up, however late a busy machine starts them.
export function phase() {
  const run = shape();
  if (run.executor === 'constant-arrival-rate') {
    return exec.scenario.iterationInTest < (run.rate * run.warmupMs) / 1000 ? 'warmup' : 'measure';
  }
  return Date.now() - exec.scenario.startTime < run.warmupMs ? 'warmup' : 'measure';
}
