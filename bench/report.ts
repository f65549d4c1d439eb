/**
 * Figures and ratios as a Markdown table, for the terminal and docs/benchmarks.md. Pure.
 */
import os from 'node:os';
import type { Measurement } from './measure';

export type Comparison = {
  scenario: string;
  ours: Measurement;
  baseline: Measurement;
  aim: string;
  aimMet: (ratio: number) => boolean;
  ratio: number;
};

export const rpsRatio = (ours: Measurement, baseline: Measurement) => ours.requestsPerSecond / baseline.requestsPerSecond;

const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

/** Whether the aim is met; unknown when a side finished no request (a ratio over zero proves nothing). */
const verdict = (c: Comparison): string =>
  c.ours.requestsPerSecond > 0 && c.baseline.requestsPerSecond > 0 && Number.isFinite(c.ratio)
    ? c.aimMet(c.ratio)
      ? 'yes'
      : 'no'
    : 'unknown';

export const comparisonTable = (comparisons: Comparison[]): string =>
  [
    '| Scenario | Ours | req/s | p99 ms | Baseline | req/s | p99 ms | Ratio | Aim | Met |',
    '| --- | --- | ---: | ---: | --- | ---: | ---: | ---: | --- | --- |',
    ...comparisons.map(
      (c) =>
        `| ${c.scenario} | ${c.ours.label} | ${fixed(c.ours.requestsPerSecond)} | ${fixed(c.ours.p99, 0)} | ${c.baseline.label} | ${fixed(c.baseline.requestsPerSecond)} | ${fixed(c.baseline.p99, 0)} | ${fixed(c.ratio, 2)} | ${c.aim} | ${verdict(c)} |`,
    ),
  ].join('\n');

export const failures = (measurements: Measurement[]): string[] =>
  measurements
    .filter((m) => m.non2xx > 0 || m.errors > 0)
    .map(
      (m) => `${m.label}: ${m.non2xx} non-2xx answers ${JSON.stringify(m.failedStatuses ?? {})} (not counted in req/s), ${m.errors} errors`,
    );

export const machine = () => {
  const cpus = os.cpus();
  return `${cpus[0]?.model ?? 'unknown CPU'}, ${cpus.length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()}, Node ${process.version}`;
};
