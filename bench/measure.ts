/**
 * One measurement: autocannon against a URL for a fixed time, after a warm-up.
 */
import fs from 'node:fs';
import autocannon from 'autocannon';

export type Measurement = {
  label: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** The answers that are not 2xx (nor the expected 3xx), by status: `{ "503": 12 }`. */
  failedStatuses: Record<string, number>;
  errors: number;
  /**
   * CPU time of the measured process (`Target.cpuOf`) per answer in the measured seconds, in microseconds:
   * every thread of it, whatever the load generator, sharing the machine, took meanwhile. Null when not asked
   * or not on Linux.
   */
  cpuMicrosPerRequest: number | null;
};

export type MeasureOptions = { connections: number; seconds: number; warmupSeconds: number };

export type Target = {
  label: string;
  url: string;
  method?: 'GET' | 'POST' | 'PATCH' | 'PUT';
  headers?: Record<string, string>;
  /** A request body per call (writes); the function lets each request differ. */
  body?: () => string;
  /** A path (with query) per call, on the URL's origin: every request may ask for something new. */
  path?: () => string;
  /** A 3xx status every answer is meant to have (a revalidation: 304); such answers are not failures. */
  redirectStatus?: 304;
  /** A non-2xx status every answer is meant to have (the floor's 401): counted as answers, not failures. */
  expectedStatus?: 401;
  /** The process id of the server answering, whose CPU time per request the measurement reports. */
  cpuOf?: number;
};

const run = (target: Target, connections: number, seconds: number): Promise<autocannon.Result> =>
  new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.url,
        method: target.method ?? 'GET',
        headers: target.headers,
        connections,
        duration: seconds,
        ...(target.body || target.path
          ? {
              requests: [
                {
                  setupRequest: (request: autocannon.Request) => ({
                    ...request,
                    ...(target.body ? { body: target.body() } : {}),
                    ...(target.path ? { path: target.path() } : {}),
                  }),
                },
              ],
            }
          : {}),
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
    instance.on('error', reject);
  });

/** Linux's clock ticks a second in /proc (USER_HZ, 100 on every architecture Node runs on). */
const TICKS_PER_SECOND = 100;

/** The user and system CPU time of a process so far, in microseconds; null when /proc cannot tell. */
const cpuMicros = (pid: number | undefined): number | null => {
  if (pid === undefined) return null;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command name (in parentheses, which may hold spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
};

/**
 * Waits until each process is idle: under 5% of a core over a quarter of a second, for at most 60 s. When a
 * measurement ends, autocannon closes its connections, but the server goes on with the requests it had
 * taken: ten of Strapi's offset pages at page 900 are 9 s of work each, on the thread that then serves the
 * next row. The first single-record row after them measured 356 req/s where the same read gave 1,597 later
 * in the run. A process /proc cannot tell of is taken as idle.
 */
export const settle = async (pids: readonly number[]): Promise<void> => {
  const windowMs = 250;
  const deadline = Date.now() + 60_000;
  for (const pid of pids) {
    for (;;) {
      const before = cpuMicros(pid);
      await new Promise((resolve) => setTimeout(resolve, windowMs));
      const after = cpuMicros(pid);
      if (before === null || after === null || after - before < windowMs * 1000 * 0.05 || Date.now() > deadline) break;
    }
  }
};

export const measure = async (target: Target, options: MeasureOptions): Promise<Measurement> => {
  if (options.warmupSeconds > 0) await run(target, options.connections, options.warmupSeconds);
  const cpuBefore = cpuMicros(target.cpuOf);
  const result = await run(target, options.connections, options.seconds);
  const cpuAfter = cpuMicros(target.cpuOf);
  const statuses = Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, Number(stats?.count ?? 0)] as const);
  const succeeded = (code: string) =>
    code.startsWith('2') ||
    (target.redirectStatus !== undefined && code === String(target.redirectStatus)) ||
    (target.expectedStatus !== undefined && code === String(target.expectedStatus));
  const answered = statuses.reduce((sum, [, count]) => sum + count, 0);
  const good = statuses.filter(([code]) => succeeded(code)).reduce((sum, [, count]) => sum + count, 0);
  return {
    label: target.label,
    // Answers that are refusals (503 shed, 429) are cheap and would flatter the rate: only successful
    // answers count, as a share of autocannon's average rate.
    requestsPerSecond: answered > 0 ? (result.requests.average * good) / answered : result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    // Answers neither 2xx nor the row's expected status (a revalidation's 304, the floor's 401).
    non2xx: statuses.length > 0 ? answered - good : target.redirectStatus ? result.non2xx - result['3xx'] : result.non2xx,
    failedStatuses: Object.fromEntries(statuses.filter(([code, count]) => !succeeded(code) && count > 0)),
    errors: result.errors,
    cpuMicrosPerRequest:
      cpuBefore !== null && cpuAfter !== null && result.requests.total > 0 ? (cpuAfter - cpuBefore) / result.requests.total : null,
  };
};
