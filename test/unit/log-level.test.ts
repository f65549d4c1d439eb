import { winston } from '@strapi/logger';
import { DEFAULT_LOG_LEVEL, LOG_LEVELS, resolveLogLevel } from '../../src/settings/log-level';

describe('LOG_LEVEL', () => {
  test.each([undefined, '', '  '])('%p is the default, http', (value) => {
    expect(resolveLogLevel(value)).toBe(DEFAULT_LOG_LEVEL);
    expect(DEFAULT_LOG_LEVEL).toBe('http');
  });

  test.each(LOG_LEVELS.map((level) => [level]))('%s is accepted', (level) => {
    expect(resolveLogLevel(level)).toBe(level);
  });

  test.each(['ERROR', 'warning', 'trace', '3'])('%p stops the start with a message naming it', (value) => {
    expect(() => resolveLogLevel(value)).toThrow(`got '${value}'`);
  });
});

describe('the configured console transport', () => {
  const written = async (level: string | undefined) => {
    const previous = process.env.LOG_LEVEL;
    if (level === undefined) delete process.env.LOG_LEVEL;
    else process.env.LOG_LEVEL = level;
    try {
      jest.resetModules();
      const config = (await import('../../config/logger')).default();
      const transport = config.transports[0]!;
      const seen: string[] = [];
      jest.spyOn(transport, 'log' as never).mockImplementation(((info: Record<symbol, string>, done?: () => void) => {
        // The uncoloured level (the format colours `info.level`).
        seen.push(info[Symbol.for('level')]!);
        done?.();
      }) as never);
      const logger = winston.createLogger({ levels: winston.config.npm.levels, transports: config.transports });
      for (const each of ['error', 'warn', 'info', 'http', 'verbose', 'debug']) logger.log(each, `a ${each} message`);
      await new Promise((resolve) => setImmediate(resolve));
      return seen;
    } finally {
      if (previous === undefined) delete process.env.LOG_LEVEL;
      else process.env.LOG_LEVEL = previous;
    }
  };

  test('keeps every message at or above the default level', async () => {
    expect(await written(undefined)).toEqual(['error', 'warn', 'info', 'http']);
  });

  test('keeps errors when the level is error', async () => {
    expect(await written('error')).toEqual(['error']);
  });

  test('keeps errors and warnings when the level is warn', async () => {
    expect(await written('warn')).toEqual(['error', 'warn']);
  });
});
