// The load shape of a wrk run (`wrk -c VUS -d DURATION`): a fixed number of connections
// sending requests back to back for a fixed time, as k6's constant-vus executor.
//
// Env: VUS (100), DURATION (10s), WARMUP (0s: requests sent in the first WARMUP are
// tagged phase=warmup and left out of the measured figures), THRESHOLD_FAILED (the
// highest allowed rate of failed requests, e.g. 0), THRESHOLD_CHECKS (the lowest allowed
// rate of passed checks, e.g. 1).
import exec from 'k6/execution';
import { ERROR_KINDS } from './errors.js';

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

export const VUS = parseInt(__ENV.VUS || '100', 10);
export const DURATION_MS = parseDuration(__ENV.DURATION || '10s');
export const WARMUP_MS = parseDuration(__ENV.WARMUP || '0s');

const MEASURED = '{phase:measure}';

// Thresholds that cannot fail still make k6 report the measured sub-metrics in the summary.
function thresholds() {
  const failed = __ENV.THRESHOLD_FAILED;
  const checks = __ENV.THRESHOLD_CHECKS;
  const result = {
    [`http_reqs${MEASURED}`]: ['count>=0'],
    [`http_req_duration${MEASURED}`]: ['max>=0'],
    [`http_req_failed${MEASURED}`]: [failed === undefined ? 'rate>=0' : `rate<=${failed}`],
    [`checks${MEASURED}`]: [checks === undefined ? 'rate>=0' : `rate>=${checks}`],
  };
  for (const kind of ERROR_KINDS) {
    result[`errors_${kind}${MEASURED}`] = ['count>=0'];
  }
  return result;
}

export function wrkOptions() {
  return {
    scenarios: {
      wrk: {
        executor: 'constant-vus',
        vus: VUS,
        duration: `${WARMUP_MS + DURATION_MS}ms`,
      },
    },
    summaryTrendStats: ['avg', 'min', 'med', 'p(50)', 'p(75)', 'p(90)', 'p(99)', 'max'],
    thresholds: thresholds(),
  };
}

// The tag for a request sent now: `warmup` during the first WARMUP of the run, then `measure`.
export function phase() {
  return Date.now() - exec.scenario.startTime < WARMUP_MS ? 'warmup' : 'measure';
}
