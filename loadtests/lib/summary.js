// handleSummary for every script: the full summary as JSON to the file named by
// SUMMARY_JSON (when set), and the measured figures in wrk's (or hey's) terms on stdout.
import { shape } from './options.js';
import { ERROR_KINDS } from './errors.js';

const MEASURED = '{phase:measure}';

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
  if (run.executor === 'constant-vus') {
    return run.durationMs / 1000;
  }
  return data.state.testRunDurationMs / 1000;
}

function describe(run, seconds) {
  if (run.executor === 'constant-vus') {
    const warmup = run.warmupMs > 0 ? ` after ${run.warmupMs / 1000}s warm-up` : '';
    return `${run.name}: ${run.vus} VUs, ${seconds}s measured${warmup}`;
  }
  return `${run.name}: ${run.vus} VUs x ${run.iterations} request(s), total ${seconds.toFixed(3)}s`;
}

export function textSummary(data) {
  const requests = measured(data, 'http_reqs').count || 0;
  const latency = measured(data, 'http_req_duration');
  const failedRate = measured(data, 'http_req_failed').rate || 0;
  const checks = measured(data, 'checks');
  const errors = ERROR_KINDS.map((kind) => `${kind} ${measured(data, `errors_${kind}`).count || 0}`);
  const run = shape();
  const seconds = measuredSeconds(data, run);
  const failed = failedThresholds(data);
  return [
    `  ${describe(run, seconds)}`,
    `  requests    ${requests} (${(requests / seconds).toFixed(2)}/s)`,
    `  latency     avg ${ms(latency.avg)}  p50 ${ms(latency['p(50)'])}  p75 ${ms(latency['p(75)'])}` +
      `  p90 ${ms(latency['p(90)'])}  p99 ${ms(latency['p(99)'])}  max ${ms(latency.max)}`,
    `  failed      ${(failedRate * 100).toFixed(2)}%  (${errors.join(', ')})`,
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
