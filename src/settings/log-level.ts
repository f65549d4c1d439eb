/**
 * The console log level from `LOG_LEVEL`. Pure.
 *
 * A level keeps every message at or above it (winston's rule): the default `http` keeps errors,
 * warnings, information and request lines. A misspelt level stops the start rather than silently
 * logging nothing or everything.
 */
export const LOG_LEVELS = ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'] as const;

export type LogLevel = (typeof LOG_LEVELS)[number];

export const DEFAULT_LOG_LEVEL: LogLevel = 'http';

export class LogLevelError extends Error {}

export const resolveLogLevel = (configured: string | undefined): LogLevel => {
  const value = configured?.trim();
  if (!value) return DEFAULT_LOG_LEVEL;
  if ((LOG_LEVELS as readonly string[]).includes(value)) return value as LogLevel;
  throw new LogLevelError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got '${value}'.`);
};
