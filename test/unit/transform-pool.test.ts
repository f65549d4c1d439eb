/**
 * The processes transforms run in (assets/transform-pool.ts): bounded, reused, killed at a transform's
 * time limit (its CPU time stops growing) and replaced, and a process that dies fails only its own
 * transform. A stand-in process (test/fixtures/transform-worker.js) plays the transforms; the API suite
 * asset-queue runs real ones.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PoolProblem, createTransformPool, type TransformPool } from '../../src/plugins/public-api/server/src/assets/transform-pool';
import type { Transform } from '../../src/plugins/public-api/server/src/assets/transform-query';

const script = path.join(__dirname, '../fixtures/transform-worker.js');
const transform: Transform = { width: 10, height: null, fit: null, format: 'webp', quality: 80 };
const LONG = 60_000;

/** What a stand-in process answered: the job's path, its pid and its threads setting. */
const answered = (buffer: Buffer) => {
  const [name, , pid, , threads] = buffer.toString().split(' ');
  return { name, pid: Number(pid), threads: Number(threads) };
};

/** A process's CPU time (clock ticks), or null once it is gone (a zombie counts as gone). */
const cpuTicks = (pid: number): number | null => {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[0] === 'Z' ? null : Number(fields[11]) + Number(fields[12]);
};

const until = async (condition: () => boolean) => {
  for (let i = 0; i < 1_000 && !condition(); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
};

const problemOf = async (work: Promise<unknown>): Promise<PoolProblem> => {
  try {
    await work;
  } catch (error) {
    expect(error).toBeInstanceOf(PoolProblem);
    return error as PoolProblem;
  }
  throw new Error('expected the transform to fail');
};

let pool: TransformPool | null = null;
afterEach(async () => {
  await pool?.close();
  pool = null;
});

test('a process is reused, and no more than `size` run however many transforms are asked at once', async () => {
  pool = createTransformPool({ size: 2, threads: 3, script });
  const first = answered(await pool.run('a', transform, LONG));
  expect(first).toEqual({ name: 'a', pid: expect.any(Number), threads: 3 });
  expect(answered(await pool.run('b', transform, LONG)).pid).toBe(first.pid);
  const many = await Promise.all(['c', 'd', 'e', 'f', 'g'].map((name) => pool!.run(name, transform, LONG)));
  expect(many.map((buffer) => answered(buffer).name)).toEqual(['c', 'd', 'e', 'f', 'g']);
  expect(new Set(many.map((buffer) => answered(buffer).pid)).size).toBeLessThanOrEqual(2);
  expect(pool.load()).toEqual({ processes: 2, busy: 0 });
});

test('a transform past its time limit is killed: its CPU time stops growing, a fresh process takes its place', async () => {
  pool = createTransformPool({ size: 1, threads: 1, script });
  const spinning = pool.run('spin', transform, 1_000);
  await until(() => pool!.load().busy === 1);
  const [pid] = pool.pids();
  const started = cpuTicks(pid!)!;
  // It uses CPU until its limit...
  await until(() => (cpuTicks(pid!) ?? Infinity) > started);
  expect((await problemOf(spinning)).kind).toBe('timed_out');
  // ...and none after: the process is gone.
  await until(() => cpuTicks(pid!) === null);
  expect(pool.pids()).not.toContain(pid);
  expect(pool.load()).toEqual({ processes: 1, busy: 0 });
  const next = answered(await pool.run('after', transform, LONG));
  expect(next.name).toBe('after');
  expect(next.pid).not.toBe(pid);
});

test('a transform waiting for a process gets the one freed by a kill', async () => {
  pool = createTransformPool({ size: 1, threads: 1, script });
  const spinning = pool.run('spin', transform, 500);
  const waiting = pool.run('waiting', transform, LONG);
  expect((await problemOf(spinning)).kind).toBe('timed_out');
  expect(answered(await waiting).name).toBe('waiting');
  expect(pool.load()).toEqual({ processes: 1, busy: 0 });
});

test("an error is the transform's, and the process is kept; a process that dies fails only its transform", async () => {
  const warnings: string[] = [];
  pool = createTransformPool({ size: 1, threads: 1, script, warn: (message) => warnings.push(message) });
  const { pid } = answered(await pool.run('a', transform, LONG));
  const failed = await problemOf(pool.run('fail', transform, LONG));
  expect(failed).toMatchObject({ kind: 'failed', message: 'It cannot be done.' });
  expect(answered(await pool.run('b', transform, LONG)).pid).toBe(pid);
  expect((await problemOf(pool.run('exit', transform, LONG))).kind).toBe('exited');
  expect(warnings).toEqual(['a transform process exited (code 3) during a transform']);
  const after = answered(await pool.run('c', transform, LONG));
  expect(after.pid).not.toBe(pid);
});

test("a process that dies leaves nothing behind: its transform's time limit does not fire later", async () => {
  pool = createTransformPool({ size: 1, threads: 1, script });
  // A process already started, so that the limit below is not spent starting one.
  await pool.run('warm', transform, LONG);
  expect((await problemOf(pool.run('exit', transform, 1_000))).kind).toBe('exited');
  expect(pool.load()).toEqual({ processes: 0, busy: 0 });
  // Past the dead transform's limit: no process was killed nor started in its name.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect(pool.load()).toEqual({ processes: 0, busy: 0 });
});

test('an idle process exits after idleMs; the next transform starts another', async () => {
  pool = createTransformPool({ size: 1, threads: 1, script, idleMs: 50 });
  const { pid } = answered(await pool.run('a', transform, LONG));
  await until(() => pool!.load().processes === 0 && cpuTicks(pid) === null);
  expect(answered(await pool.run('b', transform, LONG)).pid).not.toBe(pid);
});

test('closing kills every process: what runs and what waits fails, nothing runs after', async () => {
  pool = createTransformPool({ size: 1, threads: 1, script });
  const spinning = problemOf(pool.run('spin', transform, LONG));
  const waiting = problemOf(pool.run('waiting', transform, LONG));
  await until(() => pool!.load().busy === 1);
  const [pid] = pool.pids();
  await pool.close();
  expect((await spinning).kind).toBe('exited');
  expect((await waiting).kind).toBe('exited');
  expect(cpuTicks(pid!)).toBeNull();
  expect((await problemOf(pool.run('late', transform, LONG))).kind).toBe('exited');
});
