import { formats, winston } from '@strapi/logger';
import { LogFormatError, resolveLogFormat } from '../src/settings/log-format';
import { LogLevelError, resolveLogLevel } from '../src/settings/log-level';

const settings = () => {
  try {
    return { level: resolveLogLevel(process.env.LOG_LEVEL), format: resolveLogFormat(process.env.LOG_FORMAT) };
  } catch (error) {
    if (error instanceof LogLevelError || error instanceof LogFormatError) {
      process.stderr.write(`Invalid logger settings: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
};

/**
 * A person's line: Strapi's pretty print, with the request id of an entry written while a request ran
 * (the public-api plugin adds `requestId` to those entries, http/request-context.ts).
 */
const pretty = () =>
  winston.format.combine(
    winston.format((info) => {
      if (typeof info.stack === 'string') info.message = `${String(info.message)}\n${info.stack}`;
      if (typeof info.requestId === 'string' && info[Symbol.for('level')] !== 'http')
        info.message = `${String(info.message)} [request ${info.requestId}]`;
      return info;
    })(),
    formats.prettyPrint({ timestamps: 'YYYY-MM-DD hh:mm:ss.SSS' }),
  );

/** One JSON object per line: the entry's fields, its level, message and an ISO timestamp; errors with their stack. */
const json = () => winston.format.combine(winston.format.timestamp(), winston.format.json());

/**
 * What every entry goes through before its transport: an Error logged as the entry itself (Strapi logs
 * start failures so) becomes its message and its stack, which the transports' copies of the entry would
 * otherwise lose (an Error's message and stack are not enumerable). Nothing else is changed: each
 * transport formats the entry once.
 */
const errorsAsFields = winston.format((info) =>
  info instanceof Error ? Object.assign({}, info, { message: info.message, stack: info.stack }) : info,
);

// The transport's level keeps every message at or above it. (A `levelFilter` format here would keep
// only messages of exactly that level and drop every error.) LOG_LEVEL=error keeps tests, benchmarks
// and scripts quiet.
export default () => {
  const { level, format } = settings();
  return {
    // Each entry is formatted once, by its transport: Strapi's default logger-wide format (its pretty print)
    // would colour the level and write a local timestamp before the transport sees the entry, which a
    // JSON line must not carry (and which coloured pretty lines twice).
    format: errorsAsFields(),
    transports: [new winston.transports.Console({ level, format: format === 'json' ? json() : pretty() })],
  };
};
