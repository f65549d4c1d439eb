/**
 * The console log format from `LOG_FORMAT`. Pure.
 *
 * `pretty` (default) is a line a person reads; `json` is one JSON object per line (level, message,
 * timestamp and the entry's fields: a request's id, method, route, status, duration and key id), which a
 * log collector parses without rules of its own (docs/deployment.md, Logs).
 */
export const LOG_FORMATS = ['pretty', 'json'] as const;

export type LogFormat = (typeof LOG_FORMATS)[number];

export class LogFormatError extends Error {}

export const resolveLogFormat = (configured: string | undefined): LogFormat => {
  const value = configured?.trim();
  if (!value) return 'pretty';
  if ((LOG_FORMATS as readonly string[]).includes(value)) return value as LogFormat;
  throw new LogFormatError(`LOG_FORMAT must be one of ${LOG_FORMATS.join(', ')}, got '${value}'.`);
};
