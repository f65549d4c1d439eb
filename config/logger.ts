import { formats, winston } from '@strapi/logger';

// LOG_LEVEL=error keeps tests, benchmarks and scripts quiet; the default shows requests.
export default {
  transports: [
    new winston.transports.Console({
      level: process.env.LOG_LEVEL || 'http',
      format: winston.format.combine(formats.levelFilter(process.env.LOG_LEVEL || 'http'), formats.prettyPrint({ timestamps: 'YYYY-MM-DD hh:mm:ss.SSS' })),
    }),
  ],
};
