/**
 * The atomic rows of `npm run bench` (issue 17): 100 events created by one POST /api/v2/operations
 * against the same 100 created by single POST /api/v2/events, on the same server in the same run.
 *
 * A round times both sides whole (first byte sent to last answer read): the atomic request, the 100 POSTs
 * one after another on one keep-alive connection, and the 100 POSTs ten at a time. The sides alternate
 * which goes first from round to round, so drift in the machine's load touches each alike; the first
 * round warms up and is not counted. Each side's figure is its median round, given as "req/s" = batches
 * of 100 records a second (1000 / median ms), so the ratio is how many times faster the atomic request is.
 */
import http from 'node:http';
import type { Measurement } from './measure';
import { rpsRatio, type Comparison } from './report';

export const ATOMIC_BATCH = 100;
const ATOMIC_MEDIA_TYPE = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

const asMeasurement = (label: string, milliseconds: number[], failures: number): Measurement => ({
  label,
  requestsPerSecond: 1000 / median(milliseconds),
  p50: median(milliseconds),
  p99: Math.max(...milliseconds),
  non2xx: failures,
  failedStatuses: {},
  errors: 0,
  cpuMicrosPerRequest: null,
});

type Post = (path: string, body: string, contentType: string) => Promise<number>;

/** POSTs on keep-alive connections (at most `sockets` at once); resolves with the status once the body is read. */
const poster = (baseUrl: string, headers: Record<string, string>, agent: http.Agent): Post => {
  const url = new URL(baseUrl);
  return (path, body, contentType) =>
    new Promise((resolve, reject) => {
      const req = http.request(
        {
          agent,
          host: url.hostname,
          port: url.port,
          method: 'POST',
          path: `${url.pathname}${path}`,
          headers: { ...headers, 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
};

const elapsed = async (work: () => Promise<number>): Promise<{ ms: number; failures: number }> => {
  const started = process.hrtime.bigint();
  const failures = await work();
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, failures };
};

/** Runs `count` tasks, at most `width` at a time; resolves with how many did not answer 2xx. */
const inWaves = async (count: number, width: number, task: (index: number) => Promise<number>): Promise<number> => {
  let next = 0;
  let failures = 0;
  const worker = async () => {
    while (next < count) {
      const status = await task(next++);
      if (status < 200 || status >= 300) failures += 1;
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return failures;
};

export const benchAtomic = async (
  apiUrl: string,
  authorization: string,
  rounds: number,
  log: (line: string) => void,
): Promise<{ comparisons: Comparison[]; measurements: Measurement[] }> => {
  let serial = 0;
  // Titles whose slugs do not start with `bench-` (the depth rows read only the seeded events).
  const event = () => ({
    title: `Atomic bench ${process.pid}-${Date.now()}-${(serial += 1)}`,
    startsAt: '2027-03-01T19:00:00.000Z',
    category: 'talk',
  });
  const headers = { Authorization: authorization };
  const one = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const ten = new http.Agent({ keepAlive: true, maxSockets: 10 });
  const postOne = poster(apiUrl, headers, one);
  const postTen = poster(apiUrl, headers, ten);

  const sides = {
    atomic: () =>
      elapsed(async () => {
        const body = JSON.stringify({
          'atomic:operations': Array.from({ length: ATOMIC_BATCH }, () => ({ op: 'add', data: { type: 'events', attributes: event() } })),
        });
        const status = await postOne('/operations', body, ATOMIC_MEDIA_TYPE);
        return status === 200 ? 0 : ATOMIC_BATCH;
      }),
    sequential: () =>
      elapsed(() =>
        inWaves(ATOMIC_BATCH, 1, () =>
          postOne('/events', JSON.stringify({ data: { type: 'events', attributes: event() } }), 'application/vnd.api+json'),
        ),
      ),
    concurrent: () =>
      elapsed(() =>
        inWaves(ATOMIC_BATCH, 10, () =>
          postTen('/events', JSON.stringify({ data: { type: 'events', attributes: event() } }), 'application/vnd.api+json'),
        ),
      ),
  };
  type Side = keyof typeof sides;
  const order: Side[] = ['atomic', 'sequential', 'concurrent'];
  const times: Record<Side, number[]> = { atomic: [], sequential: [], concurrent: [] };
  const failed: Record<Side, number> = { atomic: 0, sequential: 0, concurrent: 0 };
  log(
    `  ${rounds} rounds of ${ATOMIC_BATCH} creates: one atomic request, ${ATOMIC_BATCH} POSTs one at a time, ${ATOMIC_BATCH} POSTs ten at a time ...`,
  );
  for (let round = 0; round <= rounds; round += 1) {
    // Rotated each round, so that no side always runs right after another.
    const sequence = order.map((_, i) => order[(i + round) % order.length]!);
    for (const side of sequence) {
      const { ms, failures } = await sides[side]();
      if (round === 0) continue;
      times[side].push(ms);
      failed[side] += failures;
    }
  }
  one.destroy();
  ten.destroy();
  log(
    `  medians: atomic ${median(times.atomic).toFixed(0)} ms, one at a time ${median(times.sequential).toFixed(0)} ms, ten at a time ${median(times.concurrent).toFixed(0)} ms`,
  );

  const atomic = asMeasurement(`POST /api/v2/operations, ${ATOMIC_BATCH} adds (batches/s)`, times.atomic, failed.atomic);
  const sequential = asMeasurement(`${ATOMIC_BATCH} x POST /api/v2/events, one at a time (batches/s)`, times.sequential, failed.sequential);
  const concurrent = asMeasurement(`${ATOMIC_BATCH} x POST /api/v2/events, ten at a time (batches/s)`, times.concurrent, failed.concurrent);
  const row = (scenario: string, baseline: Measurement): Comparison => ({
    scenario,
    ours: atomic,
    baseline,
    aim: '>= 5x',
    aimMet: (ratio) => ratio >= 5,
    ratio: rpsRatio(atomic, baseline),
  });
  return {
    measurements: [atomic, sequential, concurrent],
    comparisons: [
      row(`${ATOMIC_BATCH} creates: one atomic request vs ${ATOMIC_BATCH} POSTs one at a time (rate = 1 / median ms)`, sequential),
      row(`${ATOMIC_BATCH} creates: one atomic request vs ${ATOMIC_BATCH} POSTs ten at a time (rate = 1 / median ms)`, concurrent),
    ],
  };
};
