/**
 * `kill -9` in the middle of a job application with a CV (issue 13, defect 17; contract sections 7 and 13).
 *
 * The application runs as a child process (`strapi start`) on this suite's database. The child is killed
 * the moment the CV's bytes start to appear in public/uploads, before its transaction can commit. Then:
 * the bytes are there without a file row (what the crash left), and so is the child's private scratch
 * directory; after a restart neither is (the start sweeps what a dead process left); and the request's
 * Idempotency-Key, claimed by the dead process, is usable again within a lease, not after five minutes.
 *
 * SQLite and PostgreSQL (TEST_DATABASE=postgres).
 */
import { randomInt } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Core } from '@strapi/strapi';
import { bootApp, type TestApp } from '../helpers/app';
import { publish } from '../helpers/fixtures';
import { minimalPdf } from '../helpers/files';
import { createKey } from '../helpers/keys';
import { APP_ROOT, startApp, type RunningApp } from '../helpers/processes';
import { IDEMPOTENCY_LEASE_MS } from '../../src/plugins/public-api/server/src/idempotency/claim';
import { INTENT_SUFFIX } from '../../src/plugins/public-api/server/src/uploads/intent';
import { SCRATCH_ROOT } from '../../src/plugins/public-api/server/src/uploads/owners';

const JOB = 'api::job.job';
const APPLICATION = 'api::job-application.job-application';
const FILE = 'plugin::upload.file';
const UPLOADS = path.join(APP_ROOT, 'public', 'uploads');
const SCRATCH = path.join(APP_ROOT, SCRATCH_ROOT);

let app: TestApp;
let s: Core.Strapi;
let auth: string;
const children: RunningApp[] = [];
/** Applicants of this suite, whose CVs it removes from the shared public/uploads at the end. */
const applicants: string[] = [];

beforeAll(async () => {
  app = await bootApp();
  s = app.strapi;
  // This process receives no uploads; its own sweeps must not do the restarted child's work for it.
  await (s.plugin('public-api').service('uploads') as { stop: () => Promise<void> }).stop();
  await publish(s, JOB, { title: 'Crash test', slug: 'crash-test', department: 'engineering', employmentType: 'full-time' });
  auth = (await createKey(s, { commands: ['job-application'] })).auth;
}, 120_000);
afterAll(async () => {
  for (const child of children) await child.stop();
  await app?.close();
  for (const name of applicants) for (const file of cvFiles(name)) fs.rmSync(path.join(UPLOADS, file), { force: true });
});

const letters = () => Array.from({ length: 8 }, () => String.fromCharCode(97 + randomInt(26))).join('');

/** A CV large enough that writing it takes a while: a PDF by its first bytes. */
const CV = Buffer.concat([minimalPdf('Crash test'), Buffer.alloc(6 * 1024 * 1024, 0x20)]);

const form = (name: string) => {
  const body = new FormData();
  body.append(
    'data',
    JSON.stringify({
      data: { type: 'job-application', attributes: { job: 'crash-test', name, email: 'crash@example.com', consent: true } },
    }),
  );
  body.append('cv', new Blob([CV], { type: 'application/pdf' }), 'cv.pdf');
  return body;
};

const apply = (url: string, name: string, idempotencyKey: string) =>
  fetch(`${url}/api/v2/commands/job-application`, {
    method: 'POST',
    headers: { Authorization: auth, 'Idempotency-Key': idempotencyKey },
    body: form(name),
  });

/** Files in public/uploads that are this applicant's CV (Strapi names them after the display name). */
const cvFiles = (name: string) => fs.readdirSync(UPLOADS).filter((file) => file.startsWith(`CV_${name.replace(/ /g, '_')}_`));
const cvRows = async (name: string) =>
  (await s.db.query(FILE).findMany({ where: { name: `CV ${name}.pdf` } })) as { hash: string; ext: string }[];
const scratchOf = (pid: number) =>
  fs.existsSync(SCRATCH) ? fs.readdirSync(SCRATCH).filter((entry) => entry.split('~')[1] === String(pid)) : [];
const filesUnder = (directory: string): string[] =>
  fs
    .readdirSync(directory, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? filesUnder(path.join(directory, entry.name)) : [entry.name]));

type Crash = { name: string; key: string; pid: number; killedAt: number };

/**
 * Starts a child, sends an application and kills the child as soon as the CV's file is created in
 * public/uploads. Null when the child was faster and committed first (then the round proves nothing).
 */
const crashMidUpload = async (): Promise<Crash | null> => {
  const child = await startApp({});
  children.push(child);
  const name = `Crash ${letters()}`;
  applicants.push(name);
  const key = `crash-${letters()}`;
  const prefix = `CV_${name.replace(/ /g, '_')}_`;
  let killedAt = 0;
  const watcher = fs.watch(UPLOADS, (_event, file) => {
    if (!killedAt && file?.startsWith(prefix)) {
      process.kill(child.pid, 'SIGKILL');
      killedAt = Date.now();
    }
  });
  try {
    const answer = await apply(child.url, name, key).then(
      (res) => res.status,
      () => null,
    );
    await child.stop();
    if (answer !== null || !killedAt) return null;
  } finally {
    watcher.close();
  }
  // Committed before the kill landed: not the crash this test is about.
  if ((await cvRows(name)).length) return null;
  return { name, key, pid: child.pid, killedAt };
};

test('a crash mid-upload leaves nothing of the CV after a restart, and its Idempotency-Key is free again within a lease', async () => {
  let crash: Crash | null = null;
  for (let round = 0; round < 3 && !crash; round += 1) crash = await crashMidUpload();
  expect(crash).not.toBeNull();
  const { name, key, pid, killedAt } = crash!;

  // What the crash left: the CV's bytes (whole or cut short) without a file row, and the dead process's
  // scratch directory with the received part and the note naming those bytes.
  expect(cvFiles(name)).toHaveLength(1);
  expect(await cvRows(name)).toEqual([]);
  const [scratch] = scratchOf(pid);
  expect(scratch).toBeDefined();
  expect(filesUnder(path.join(SCRATCH, scratch!)).some((file) => file.endsWith(INTENT_SUFFIX))).toBe(true);

  // The next start sweeps both before it serves a request.
  const restarted = await startApp({});
  children.push(restarted);
  expect(cvFiles(name)).toEqual([]);
  expect(scratchOf(pid)).toEqual([]);
  expect(await s.db.query(APPLICATION).count({ where: { name } })).toBe(0);

  // The dead request's claim blocks its key only until its lease runs out (no one renews it any more).
  const answers: { status: number; reason?: string; replayed: string | null }[] = [];
  const deadline = killedAt + IDEMPOTENCY_LEASE_MS + 30_000;
  for (;;) {
    const res = await apply(restarted.url, name, key);
    const body = (await res.json()) as { errors?: { meta?: { reason: string } }[] };
    answers.push({ status: res.status, reason: body.errors?.[0]?.meta?.reason, replayed: res.headers.get('idempotent-replayed') });
    if (res.status !== 409 || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  expect(answers.at(-1)).toEqual({ status: 201, reason: undefined, replayed: null });
  for (const answer of answers.slice(0, -1)) expect(answer).toEqual({ status: 409, reason: 'idempotency_in_progress', replayed: null });

  // The retry's application is stored once, with its CV, and every byte of it has its row.
  const applications = (await s.db.query(APPLICATION).findMany({ where: { name }, populate: { cv: true } })) as {
    cv: { hash: string; ext: string } | null;
  }[];
  expect(applications).toHaveLength(1);
  expect(applications[0]!.cv).not.toBeNull();
  const rows = await cvRows(name);
  expect(cvFiles(name).sort()).toEqual(rows.map((row) => `${row.hash}${row.ext}`).sort());
  // Nothing of the request stays in the scratch directory once it is answered.
  const [own] = scratchOf(restarted.pid);
  expect(own === undefined ? [] : filesUnder(path.join(SCRATCH, own))).toEqual([]);
}, 240_000);
