/**
 * What running several instances behind a proxy needs of each one (docs/deployment.md): the token that
 * opens the metrics endpoint, and the graceful drain on SIGTERM.
 */
export type OperationsConfig = {
  /**
   * Bearer token of `GET /metrics` (METRICS_TOKEN). Empty: the endpoint does not exist (404), so metrics
   * are never public by accident.
   */
  metricsToken: string;
  /**
   * How long an instance told to stop (SIGTERM) keeps serving while its readiness endpoint says 503,
   * before it closes its listener: long enough for the proxy's health checks to take it out of the
   * rotation (its check interval times its fall count, and a margin).
   */
  drainDelayMs: number;
  /** How long, after the listener closed, requests in flight may take to finish before the process ends anyway. */
  shutdownTimeoutMs: number;
};

/** HAProxy's default check interval (2 s) times its default fall count (3), and a second more. */
export const DEFAULT_DRAIN_DELAY_MS = 7_000;
/** The longest a keyed response may take to be read (responseSendTimeoutMs) is 30 s; a deploy waits no longer. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 30_000;
/** The most a metrics token may be (it is compared whole, in constant time). */
const MAX_TOKEN_LENGTH = 256;

export const OPERATIONS_DEFAULTS: OperationsConfig = {
  metricsToken: '',
  drainDelayMs: DEFAULT_DRAIN_DELAY_MS,
  shutdownTimeoutMs: DEFAULT_SHUTDOWN_TIMEOUT_MS,
};

/** Throws an Error whose message names the environment variable to fix. */
export const validateOperationsConfig = (config: Partial<OperationsConfig>): void => {
  const token = config.metricsToken;
  if (token !== undefined && token !== '') {
    // Printable ASCII without spaces: what an Authorization header carries as it is.
    if (typeof token !== 'string' || token.length < 16 || token.length > MAX_TOKEN_LENGTH || !/^[\x21-\x7e]+$/.test(token)) {
      throw new Error(`METRICS_TOKEN must be 16 to ${MAX_TOKEN_LENGTH} characters without spaces (or unset, which turns /metrics off).`);
    }
  }
  for (const [name, variable, max] of [
    ['drainDelayMs', 'SHUTDOWN_DRAIN_DELAY_MS', 300_000],
    ['shutdownTimeoutMs', 'SHUTDOWN_TIMEOUT_MS', 600_000],
  ] as const) {
    const value = config[name];
    if (value !== undefined && (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > max)) {
      throw new Error(`${variable} must be a whole number of milliseconds from 0 to ${max}.`);
    }
  }
};
