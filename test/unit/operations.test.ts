/**
 * The pure parts of running many instances (issue 20): request ids, the request context of log entries,
 * LOG_FORMAT and the JSON lines it gives, the operations settings, and the HAProxy configuration the
 * cluster writes (checked by haproxy itself when it is installed).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { winston } from '@strapi/logger';
import { METRICS_NOT_HERE_BODY, METRICS_PATH_PATTERN, drainDelayFor, renderHaproxyConfig } from '../../scripts/lib/haproxy';
import { instanceCount } from '../../scripts/cluster';
import { validateOperationsConfig } from '../../src/plugins/public-api/server/src/config/operator';
import { addRequestIdsTo, currentRequestId, runInRequest } from '../../src/plugins/public-api/server/src/http/request-context';
import { isSaneRequestId, requestIdOf } from '../../src/plugins/public-api/server/src/http/request-id';
import { resolveLogFormat } from '../../src/settings/log-format';
import { resolveUploadProvider } from '../../src/settings/upload-provider';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request ids', () => {
  test('an incoming id is kept only when trusted and sane', () => {
    expect(requestIdOf('5F2A1C-127.0.0.1-1', true)).toBe('5F2A1C-127.0.0.1-1');
    expect(requestIdOf('5F2A1C-127.0.0.1-1', false)).toMatch(UUID);
    expect(requestIdOf(undefined, true)).toMatch(UUID);
    for (const insane of ['', ' ', 'a b', 'x'.repeat(65), 'new\nline', 'a;b', '<script>', 'ü']) {
      expect(isSaneRequestId(insane)).toBe(false);
      expect(requestIdOf(insane, true)).toMatch(UUID);
    }
    expect(isSaneRequestId('x'.repeat(64))).toBe(true);
  });

  test('every new id differs', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => requestIdOf(undefined, false)));
    expect(ids.size).toBe(1000);
  });
});

describe('the request context of log entries', () => {
  test('entries written while a request runs, even after an await, carry its id; others do not', async () => {
    const entries: Array<Record<string, unknown>> = [];
    const logger = winston.createLogger({
      level: 'info',
      transports: [new winston.transports.Console({ level: 'info', log: undefined as never })],
    });
    logger.transports[0]!.log = ((info: Record<string, unknown>, done: () => void) => {
      entries.push({ ...info });
      done();
    }) as never;
    addRequestIdsTo(logger as never);
    logger.info('outside');
    await runInRequest({ requestId: 'req-1' }, async () => {
      expect(currentRequestId()).toBe('req-1');
      await new Promise((resolve) => setTimeout(resolve, 5));
      logger.error('inside, later');
      logger.info('names its own', { requestId: 'other' });
    });
    expect(currentRequestId()).toBeUndefined();
    await new Promise((resolve) => setImmediate(resolve));
    expect(entries.map((entry) => [entry.message, entry.requestId])).toEqual([
      ['outside', undefined],
      ['inside, later', 'req-1'],
      ['names its own', 'other'],
    ]);
  });
});

describe('LOG_FORMAT', () => {
  test('pretty by default, json when asked, anything else stops the start', () => {
    expect(resolveLogFormat(undefined)).toBe('pretty');
    expect(resolveLogFormat(' ')).toBe('pretty');
    expect(resolveLogFormat('json')).toBe('json');
    expect(() => resolveLogFormat('JSON')).toThrow("LOG_FORMAT must be one of pretty, json, got 'JSON'.");
  });

  const linesWith = async (format: string) => {
    const previous = { format: process.env.LOG_FORMAT, level: process.env.LOG_LEVEL };
    process.env.LOG_FORMAT = format;
    process.env.LOG_LEVEL = 'http';
    try {
      jest.resetModules();
      const config = (await import('../../config/logger')).default();
      const transport = config.transports[0]!;
      const lines: string[] = [];
      jest.spyOn(transport, 'log' as never).mockImplementation(((info: Record<symbol, string>, done?: () => void) => {
        lines.push(info[Symbol.for('message')]!);
        done?.();
      }) as never);
      const logger = winston.createLogger({ levels: winston.config.npm.levels, format: config.format, transports: config.transports });
      logger.http('GET /api/v2/events 200 3.1 ms', { requestId: 'r-1', route: 'v2:native-collection', status: 200, keyId: 'k1' });
      logger.error('it broke', { requestId: 'r-2' });
      logger.error(new Error('start failed'));
      await new Promise((resolve) => setImmediate(resolve));
      return lines;
    } finally {
      for (const [name, value] of [
        ['LOG_FORMAT', previous.format],
        ['LOG_LEVEL', previous.level],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  };

  test('json: one object per line with the fields, level, message and timestamp', async () => {
    const [request, error, thrown] = (await linesWith('json')).map((line) => JSON.parse(line));
    expect(thrown).toMatchObject({
      level: 'error',
      message: 'start failed',
      stack: expect.stringContaining('Error: start failed\n    at '),
    });
    expect(request).toMatchObject({ level: 'http', message: 'GET /api/v2/events 200 3.1 ms', requestId: 'r-1', status: 200, keyId: 'k1' });
    expect(request.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(error).toMatchObject({ level: 'error', message: 'it broke', requestId: 'r-2' });
  });

  test('pretty: an error names its request id', async () => {
    const [request, error, thrown] = await linesWith('pretty');
    expect(thrown).toContain('start failed\nError: start failed\n    at ');
    expect(request).toContain('GET /api/v2/events 200 3.1 ms');
    expect(error).toContain('it broke [request r-2]');
  });
});

describe('the operations settings', () => {
  test('a metrics token of 16 to 256 characters without spaces, or none', () => {
    expect(() => validateOperationsConfig({ metricsToken: '' })).not.toThrow();
    expect(() => validateOperationsConfig({ metricsToken: 'a'.repeat(16) })).not.toThrow();
    expect(() => validateOperationsConfig({ metricsToken: 'short' })).toThrow(/METRICS_TOKEN/);
    expect(() => validateOperationsConfig({ metricsToken: `${'a'.repeat(16)} b` })).toThrow(/METRICS_TOKEN/);
    expect(() => validateOperationsConfig({ metricsToken: 'a'.repeat(257) })).toThrow(/METRICS_TOKEN/);
  });

  test('drain times are whole milliseconds in range', () => {
    expect(() => validateOperationsConfig({ drainDelayMs: 0, shutdownTimeoutMs: 30_000 })).not.toThrow();
    expect(() => validateOperationsConfig({ drainDelayMs: -1 })).toThrow(/SHUTDOWN_DRAIN_DELAY_MS/);
    expect(() => validateOperationsConfig({ drainDelayMs: 1.5 })).toThrow(/SHUTDOWN_DRAIN_DELAY_MS/);
    expect(() => validateOperationsConfig({ shutdownTimeoutMs: 600_001 })).toThrow(/SHUTDOWN_TIMEOUT_MS/);
    expect(() => validateOperationsConfig({ shutdownTimeoutMs: Number.NaN })).toThrow(/SHUTDOWN_TIMEOUT_MS/);
  });
});

describe('npm run cluster', () => {
  test('the instance count: --instances, else CLUSTER_INSTANCES, else 2; 1 to 9', () => {
    expect(instanceCount([], {})).toBe(2);
    expect(instanceCount(['--instances', '3'], { CLUSTER_INSTANCES: '5' })).toBe(3);
    expect(instanceCount([], { CLUSTER_INSTANCES: '5' })).toBe(5);
    for (const bad of ['0', '10', 'two', '-1', '2.5']) expect(instanceCount(['--instances', bad], {})).toMatch(/from 1 to 9/);
  });
});

describe('the HAProxy configuration', () => {
  const config = renderHaproxyConfig({
    bind: { host: '127.0.0.1', port: 4570 },
    servers: [
      { name: 'i1', host: '127.0.0.1', port: 4571 },
      { name: 'i2', host: '127.0.0.1', port: 4572 },
    ],
    statsSocket: path.join(os.tmpdir(), `pda-haproxy-${process.pid}.sock`),
    checkIntervalMs: 500,
    fall: 2,
    rise: 2,
    serverTimeoutMs: 60_000,
  });

  test('checks readiness, retries safely, sets request ids', () => {
    expect(config).toContain('option httpchk GET /health/ready');
    expect(config).toContain('http-check expect status 200');
    expect(config).toContain('server i1 127.0.0.1:4571 check');
    expect(config).toContain('server i2 127.0.0.1:4572 check');
    expect(config).toContain('default-server inter 500ms fastinter 500ms downinter 500ms fall 2 rise 2');
    expect(config).toMatch(/disable-l7-retry unless METH_GET .*idempotency-key/);
    expect(config).toContain('http-request set-header X-Request-Id %[unique-id] unless { req.hdr(x-request-id) -m found }');
  });

  test('/metrics is answered 404 by the proxy, however its path is written (issue 33)', () => {
    expect(config).toContain(`acl metrics_path path,url_dec,lower -m reg ${METRICS_PATH_PATTERN}`);
    expect(config).toContain(
      `http-request return status 404 content-type application/vnd.api+json string '${METRICS_NOT_HERE_BODY}' if metrics_path`,
    );
    // The rule comes before the backend is chosen, in the frontend every request passes.
    const frontend = config.slice(config.indexOf('frontend public'), config.indexOf('\nbackend instances'));
    expect(frontend.indexOf('if metrics_path')).toBeGreaterThan(0);
    expect(frontend.indexOf('if metrics_path')).toBeLessThan(frontend.indexOf('default_backend'));
    // The pattern as HAProxy applies it: to the path, percent-decoded and lower-cased (the query is not in it).
    const blocked = (path: string) => new RegExp(METRICS_PATH_PATTERN).test(decodeURIComponent(path).toLowerCase());
    for (const path of ['/metrics', '/metrics/', '/METRICS', '//metrics', '/%6detrics', '/%6D%65trics/x', '/metrics/../metrics']) {
      expect([path, blocked(path)]).toEqual([path, true]);
    }
    for (const path of ['/health/ready', '/api/v2/metrics', '/metricsx', '/api/v2/events'])
      expect([path, blocked(path)]).toEqual([path, false]);
    // The body is a JSON:API error document, in single quotes HAProxy takes as they are.
    expect(JSON.parse(METRICS_NOT_HERE_BODY)).toEqual({
      jsonapi: { version: '1.1' },
      errors: [{ status: '404', code: 'not_found', title: 'Not Found', detail: 'Nothing is here.' }],
    });
    expect(METRICS_NOT_HERE_BODY).not.toContain("'");
  });

  test('a draining instance answers until the proxy has surely taken it out', () => {
    // Two failed checks 500 ms apart, a check's own time, and a margin.
    expect(drainDelayFor({ checkIntervalMs: 500, fall: 2 })).toBe(2_500);
    expect(drainDelayFor({ checkIntervalMs: 500, fall: 2 })).toBeGreaterThan(2 * 500);
  });

  const haproxy = spawnSync('haproxy', ['-v']).status === 0;
  (haproxy ? test : test.skip)('haproxy accepts it (haproxy -c)', () => {
    const file = path.join(os.tmpdir(), `pda-haproxy-${process.pid}.cfg`);
    fs.writeFileSync(file, config);
    try {
      const result = spawnSync('haproxy', ['-c', '-f', file], { encoding: 'utf8' });
      expect(`${result.stdout}${result.stderr}`).toContain('Configuration file is valid');
      expect(result.status).toBe(0);
    } finally {
      fs.rmSync(file, { force: true });
    }
  });
});

describe('UPLOAD_PROVIDER', () => {
  const installed = () => true;
  test('local (Strapi default) unless aws-s3 is asked for', () => {
    expect(resolveUploadProvider({}, installed)).toBeNull();
    expect(resolveUploadProvider({ UPLOAD_PROVIDER: 'local' }, installed)).toBeNull();
  });

  test('aws-s3 from the environment: bucket, region, S3-compatible endpoint, keys, public URL', () => {
    const config = resolveUploadProvider(
      {
        UPLOAD_PROVIDER: 'aws-s3',
        AWS_REGION: 'eu-central-1',
        AWS_BUCKET: 'media',
        AWS_ENDPOINT: 'http://127.0.0.1:9000',
        AWS_FORCE_PATH_STYLE: 'true',
        AWS_ACCESS_KEY_ID: 'id',
        AWS_SECRET_ACCESS_KEY: 'secret',
        AWS_PUBLIC_URL: 'https://media.example',
        AWS_ROOT_PATH: 'uploads',
      },
      installed,
    );
    expect(config).toEqual({
      config: {
        provider: 'aws-s3',
        providerOptions: {
          baseUrl: 'https://media.example',
          rootPath: 'uploads',
          s3Options: {
            region: 'eu-central-1',
            endpoint: 'http://127.0.0.1:9000',
            forcePathStyle: true,
            credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
            params: { Bucket: 'media' },
          },
        },
        actionOptions: { upload: {}, uploadStream: {}, delete: {} },
      },
    });
  });

  test('refusals name what to fix', () => {
    const s3 = { UPLOAD_PROVIDER: 'aws-s3', AWS_REGION: 'eu-central-1', AWS_BUCKET: 'media' };
    expect(() => resolveUploadProvider(s3, () => false)).toThrow(
      /needs the package @strapi\/provider-upload-aws-s3, which is not installed/,
    );
    expect(() => resolveUploadProvider({ ...s3, AWS_BUCKET: '' }, installed)).toThrow('UPLOAD_PROVIDER=aws-s3 needs AWS_BUCKET.');
    expect(() => resolveUploadProvider({ ...s3, AWS_REGION: undefined }, installed)).toThrow('UPLOAD_PROVIDER=aws-s3 needs AWS_REGION.');
    expect(() => resolveUploadProvider({ ...s3, AWS_ACCESS_KEY_ID: 'id' }, installed)).toThrow(/go together/);
    expect(() => resolveUploadProvider({ ...s3, AWS_ENDPOINT: 'minio:9000' }, installed)).toThrow(/AWS_ENDPOINT must be/);
    expect(() => resolveUploadProvider({ UPLOAD_PROVIDER: 'ftp' }, installed)).toThrow("got 'ftp'");
  });
});
