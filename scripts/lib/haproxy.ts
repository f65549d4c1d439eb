/**
 * The HAProxy in front of the cluster's instances (`npm run cluster`, test/api/cluster.test.ts): its
 * configuration, rendered from the instances' addresses, and what its runtime API says of each server.
 *
 * - Rotation follows readiness: `option httpchk GET /health/ready` every `checkIntervalMs`; a server is
 *   out after `fall` failed checks (a draining instance answers 503) and back after `rise` good ones.
 * - A request whose connection to an instance fails is sent to another (`retries`, `option redispatch`).
 *   A request that reached an instance but got no answer (an idle connection the instance closed at that
 *   moment) is retried too when that is safe: reads, and writes that carry an Idempotency-Key (a retry
 *   gets the first answer again); other writes are never sent twice.
 * - Every request gets an `X-Request-Id` (HAProxy's unique id) unless it came with one; the instances
 *   trust it (IS_PROXIED=true) and log it (middlewares/operator.ts).
 * - `/metrics` is private (docs/deployment.md): it names key ids and routes, and a token compared on every
 *   instance is one guess per request. The proxy answers it 404 itself, however the path is written
 *   (percent-encoded, in capitals, with extra slashes), and Prometheus scrapes each instance directly.
 */
import net from 'node:net';

/** What the proxy answers for `/metrics`: an instance's own 404 when metrics are off, so nothing tells them apart. */
export const METRICS_NOT_HERE_BODY = JSON.stringify({
  jsonapi: { version: '1.1' },
  errors: [{ status: '404', code: 'not_found', title: 'Not Found', detail: 'Nothing is here.' }],
});

/** Any path that is `/metrics` or under it once decoded and lower-cased, with any number of leading slashes. */
export const METRICS_PATH_PATTERN = '^/+metrics(/|$)';

export type ProxyServer = { name: string; host: string; port: number };

export type HaproxyOptions = {
  /** Where the proxy listens. */
  bind: { host: string; port: number };
  servers: ProxyServer[];
  /** The runtime API's UNIX socket (server states). */
  statsSocket: string;
  /** How often each instance's readiness is checked. */
  checkIntervalMs: number;
  /** Failed checks in a row that take a server out; good ones that bring it back. */
  fall: number;
  rise: number;
  /** The longest an instance may take to answer (a large include takes seconds). */
  serverTimeoutMs: number;
};

export const DEFAULT_PROXY_CHECKS = { checkIntervalMs: 500, fall: 2, rise: 2 } as const;

/** The time a draining instance must keep answering before the proxy has surely taken it out. */
export const drainDelayFor = (checks: { checkIntervalMs: number; fall: number }): number =>
  (checks.fall + 2) * checks.checkIntervalMs + 500;

export const renderHaproxyConfig = (options: HaproxyOptions): string => {
  const { bind, servers, statsSocket, checkIntervalMs, fall, rise, serverTimeoutMs } = options;
  return [
    '# Written by scripts/lib/haproxy.ts for `npm run cluster`; regenerated at every start.',
    'global',
    '  maxconn 4096',
    `  stats socket ${statsSocket} mode 600 level admin`,
    '',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 60s',
    `  timeout server ${serverTimeoutMs}ms`,
    '  timeout http-request 20s',
    '  timeout http-keep-alive 10s',
    '  timeout queue 10s',
    '  timeout check 2s',
    '  option forwardfor',
    '  option redispatch 1',
    '  retries 3',
    '',
    'frontend public',
    `  bind ${bind.host}:${bind.port}`,
    '  unique-id-format %{+X}o%ci-%cp-%Ts%ms-%rt-%pid',
    '  http-request set-header X-Request-Id %[unique-id] unless { req.hdr(x-request-id) -m found }',
    `  acl metrics_path path,url_dec,lower -m reg ${METRICS_PATH_PATTERN}`,
    `  http-request return status 404 content-type application/vnd.api+json string '${METRICS_NOT_HERE_BODY}' if metrics_path`,
    '  default_backend instances',
    '',
    'backend instances',
    '  balance roundrobin',
    '  option httpchk GET /health/ready',
    '  http-check expect status 200',
    // A request is kept in a buffer so that it can be sent again (bodies up to the buffer's size).
    '  option http-buffer-request',
    '  retry-on conn-failure empty-response response-timeout',
    '  http-request disable-l7-retry unless METH_GET || METH_HEAD || METH_OPTIONS || { req.hdr(idempotency-key) -m found }',
    `  default-server inter ${checkIntervalMs}ms fastinter ${checkIntervalMs}ms downinter ${checkIntervalMs}ms fall ${fall} rise ${rise}`,
    ...servers.map((server) => `  server ${server.name} ${server.host}:${server.port} check`),
    '',
  ].join('\n');
};

export type ServerState = { name: string; status: string };

/** Each server's status (`UP`, `DOWN`, `UP 1/2`, `MAINT`, ...) from the runtime API's `show stat`. */
export const serverStates = (statsSocket: string, backend = 'instances'): Promise<ServerState[]> =>
  new Promise((resolve, reject) => {
    let text = '';
    const socket = net.createConnection(statsSocket, () => socket.end('show stat\n'));
    socket.setTimeout(2_000, () => socket.destroy(new Error('the HAProxy runtime API did not answer')));
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => {
      const [header, ...rows] = text.trim().split('\n');
      if (!header?.startsWith('# ')) return reject(new Error(`Unexpected answer of the HAProxy runtime API: ${text.slice(0, 200)}`));
      const columns = header.slice(2).split(',');
      const at = (name: string) => columns.indexOf(name);
      const states = rows
        .map((row) => row.split(','))
        .filter((cells) => cells[at('pxname')] === backend && !['FRONTEND', 'BACKEND'].includes(cells[at('svname')]!))
        .map((cells) => ({ name: cells[at('svname')]!, status: cells[at('status')]! }));
      resolve(states);
    });
  });
