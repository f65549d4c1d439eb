import { formats, winston } from '@strapi/logger';
import { LogLevelError, resolveLogLevel } from '../src/settings/log-level';

const level = (): string => {
  try {
    return resolveLogLevel(process.env.LOG_LEVEL);
  } catch (error) {
    if (error instanceof LogLevelError) {
      process.stderr.write(`Invalid logger settings: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
};

// The transport's level keeps every message at or above it. (A `levelFilter` format here would keep
// only messages of exactly that level and drop every error.) LOG_LEVEL=error keeps tests, benchmarks
// and scripts quiet.
export default () => ({
  transports: [
    new winston.transports.Console({
      level: level(),
      format: formats.prettyPrint({ timestamps: 'YYYY-MM-DD hh:mm:ss.SSS' }),
    }),
  ],
});
