/**
 * The attacking client of `npm run bench:abuse`, as a process of its own: the other key's timings are
 * taken in the bench's process, so they never wait for the attack's event loop, and the attack's CPU is
 * its own (process.cpuUsage, reported with its result) on the same cores as the server.
 *
 *   node dist/bench/abuse-attacker.js '<Attack as JSON>'
 *
 * Three kinds of attack, each for `seconds`:
 *
 * - `http`: autocannon, `connections` keep-alive connections asking for one URL without pause;
 * - `atomic`: `connections` loops, each posting one atomic request of `operations` adds of events after
 *   another on its own keep-alive connection;
 * - `transforms`: `clients` loops, each from its own address (X-Forwarded-For, behind the server's trusted
 *   proxy), asking for a new AVIF variant of one image after another (a new width each time).
 *
 * It prints one line of JSON (`AttackResult`) and exits.
 */
import http from 'node:http';
import autocannon from 'autocannon';

export type Attack =
  | { kind: 'http'; url: string; headers: Record<string, string>; connections: number; seconds: number }
  | { kind: 'atomic'; url: string; headers: Record<string, string>; connections: number; operations: number; seconds: number }
  | { kind: 'transforms'; url: string; clients: number; seconds: number };

export type AttackResult = {
  requests: number;
  /** Answers by status (0: no answer, the connection failed or timed out). */
  statuses: Record<string, number>;
  /** 2xx answers per second of the attack. */
  successesPerSecond: number;
  seconds: number;
  /** The attacking process's own CPU, user and system, in seconds. */
  cpuSeconds: number;
};

const ATOMIC_MEDIA_TYPE = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';

type Tally = { statuses: Record<string, number>; requests: number };

const count = (tally: Tally, status: number) => {
  tally.requests += 1;
  tally.statuses[String(status)] = (tally.statuses[String(status)] ?? 0) + 1;
};

/** One request on `agent`; resolves with its status once the answer is read (0 on a failure). */
const request = (
  agent: http.Agent,
  target: URL,
  options: { method: string; headers: Record<string, string>; body?: string },
): Promise<number> =>
  new Promise((resolve) => {
    const req = http.request(
      {
        agent,
        host: target.hostname,
        port: target.port,
        method: options.method,
        path: `${target.pathname}${target.search}`,
        headers: options.body === undefined ? options.headers : { ...options.headers, 'Content-Length': Buffer.byteLength(options.body) },
        timeout: 30_000,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(0));
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
    req.end(options.body);
  });

const untilDeadline = async (seconds: number, loops: number, step: (loop: number) => Promise<void>) => {
  const until = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: loops }, async (_, loop) => {
      while (Date.now() < until) await step(loop);
    }),
  );
};

const httpFlood = async (attack: Extract<Attack, { kind: 'http' }>, tally: Tally) => {
  const result = await autocannon({
    url: attack.url,
    connections: attack.connections,
    duration: attack.seconds,
    timeout: 30,
    headers: attack.headers,
  });
  for (const [status, stat] of Object.entries(result.statusCodeStats ?? {})) {
    tally.statuses[status] = (tally.statuses[status] ?? 0) + (stat as { count: number }).count;
    tally.requests += (stat as { count: number }).count;
  }
  const failed = result.errors + result.timeouts;
  if (failed > 0) {
    tally.statuses['0'] = (tally.statuses['0'] ?? 0) + failed;
    tally.requests += failed;
  }
};

const atomicLoop = async (attack: Extract<Attack, { kind: 'atomic' }>, tally: Tally) => {
  const target = new URL(attack.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: attack.connections });
  let serial = 0;
  const body = () =>
    JSON.stringify({
      'atomic:operations': Array.from({ length: attack.operations }, () => ({
        op: 'add',
        data: {
          type: 'events',
          attributes: { title: `Abuse atomic ${process.pid} ${(serial += 1)}`, startsAt: '2027-03-01T19:00:00.000Z', category: 'talk' },
        },
      })),
    });
  await untilDeadline(attack.seconds, attack.connections, async () => {
    count(
      tally,
      await request(agent, target, { method: 'POST', headers: { ...attack.headers, 'Content-Type': ATOMIC_MEDIA_TYPE }, body: body() }),
    );
  });
  agent.destroy();
};

const transformFlood = async (attack: Extract<Attack, { kind: 'transforms' }>, tally: Tally) => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: attack.clients });
  let width = 1000;
  await untilDeadline(attack.seconds, attack.clients, async (client) => {
    width += 1;
    const target = new URL(`${attack.url}?w=${width}&format=avif`);
    count(tally, await request(agent, target, { method: 'GET', headers: { 'X-Forwarded-For': `203.0.113.${client + 1}` } }));
  });
  agent.destroy();
};

export const runAttack = async (attack: Attack): Promise<AttackResult> => {
  const tally: Tally = { statuses: {}, requests: 0 };
  const cpu = process.cpuUsage();
  const started = performance.now();
  if (attack.kind === 'http') await httpFlood(attack, tally);
  else if (attack.kind === 'atomic') await atomicLoop(attack, tally);
  else await transformFlood(attack, tally);
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const successes = Object.entries(tally.statuses)
    .filter(([status]) => status.startsWith('2'))
    .reduce((sum, [, n]) => sum + n, 0);
  return {
    requests: tally.requests,
    statuses: tally.statuses,
    successesPerSecond: successes / seconds,
    seconds,
    cpuSeconds: (used.user + used.system) / 1e6,
  };
};

if (require.main === module) {
  runAttack(JSON.parse(process.argv[2] ?? '') as Attack).then(
    (result) => {
      process.stdout.write(`${JSON.stringify(result)}\n`);
      process.exit(0);
    },
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
