/**
 * The other key of `npm run bench:abuse`: what an attack costs it, as its p95 under attack divided by
 * its p95 idle, both measured in the same run on the same server.
 *
 * Its requests are paced (one every `intervalMs` at most, the next at once when one took longer), not
 * sent back to back: the victim stays a light, steady client whatever the row (a real site's server,
 * not a second attacker), its samples are spread over the whole attack, and it stays within the default
 * rate limit of 600 requests a minute when the row runs with it.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { Attack, AttackResult } from './abuse-attacker';

/** One probe of the victim: its status and milliseconds. */
export type Probe = () => Promise<{ status: number; ms: number }>;

/**
 * `samples`: the milliseconds of every answer, whatever its status (a request left without an answer
 * counts its 30 s), so that a flood that times the other key out shows as its p95, not as no figure;
 * `notOk`: the answers that were not 2xx, by status (0: none within 30 s).
 */
export type Series = { samples: number[]; notOk: Record<string, number> };

export type VictimFigures = { idle: Series; busy: Series };

export const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
};

/** One request's status and milliseconds (0: no answer), its body read whole. */
export const timed = async (url: string, init: RequestInit = {}): Promise<{ status: number; ms: number }> => {
  const started = performance.now();
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
    await res.arrayBuffer();
    return { status: res.status, ms: performance.now() - started };
  } catch {
    return { status: 0, ms: performance.now() - started };
  }
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const record = (series: Series, answer: { status: number; ms: number }) => {
  series.samples.push(answer.ms);
  if (answer.status < 200 || answer.status >= 300) series.notOk[String(answer.status)] = (series.notOk[String(answer.status)] ?? 0) + 1;
};

const DIST_ATTACKER = path.join(__dirname, 'abuse-attacker.js');

/** The attack in its own process (bench/abuse-attacker.ts); its result once it is over. */
export const launchAttack = (attack: Attack): Promise<AttackResult> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [DIST_ATTACKER, JSON.stringify(attack)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('exit', (code) => {
      try {
        resolve(JSON.parse(out) as AttackResult);
      } catch {
        reject(new Error(`The attacking process exited with ${code} and no result.`));
      }
    });
  });

/** The first second of an attack is its ramp (connections opening, the first answers): not counted. */
const RAMP_MS = 1_000;

/**
 * The victim's probes idle (`idleSamples` of each, after `warmup` unpaced), then under `attack` until it
 * ends. Each probe keeps a series of its own, idle and busy.
 */
export const measureUnderAttack = async (
  probes: Record<string, Probe>,
  attack: Attack,
  options: { idleSamples: number; intervalMs: number; warmup: number },
): Promise<{ figures: Record<string, VictimFigures>; attack: AttackResult }> => {
  const names = Object.keys(probes);
  const figures: Record<string, VictimFigures> = Object.fromEntries(
    names.map((name) => [name, { idle: { samples: [], notOk: {} }, busy: { samples: [], notOk: {} } }]),
  );
  for (const name of names) for (let i = 0; i < options.warmup; i += 1) await probes[name]!();
  // Each probe is a loop of its own, one request every intervalMs at most: a write held up for seconds
  // does not keep the reads from being measured meanwhile.
  const loops = (phase: 'idle' | 'busy', more: (name: string) => boolean) =>
    Promise.all(
      names.map(async (name) => {
        while (more(name)) {
          const started = performance.now();
          record(figures[name]![phase], await probes[name]!());
          await sleep(Math.max(0, options.intervalMs - (performance.now() - started)));
        }
      }),
    );
  await loops('idle', (name) => figures[name]!.idle.samples.length < options.idleSamples);
  let over = false;
  const attacking = launchAttack(attack).finally(() => (over = true));
  // Awaited below; a failure meanwhile must not count as unhandled.
  attacking.catch(() => undefined);
  await sleep(RAMP_MS);
  await loops('busy', () => !over);
  return { figures, attack: await attacking };
};
