/**
 * The uploads row of `npm run bench:abuse` (issue 15 (c)): rounds of concurrent job applications, each
 * with a 10 MiB CV, on the bench database's demo job; the server's peak RSS meanwhile. The CVs stored are
 * removed at the end.
 */
import fs from 'node:fs';
import path from 'node:path';
import { mib, residentBytes, sampleMemory } from './memory';
import { startServer, type RunningServer } from './server';
import type { BenchEnv } from './setup';

const say = (line = '') => process.stdout.write(`${line}\n`);

export const UPLOAD_RSS_AIM = 600_000_000;
const UPLOAD_CONCURRENCY = 20;
const UPLOAD_ROUNDS = 3;
const CV_BYTES = 10 * 1024 * 1024;

/** Whether the server still answers (its health check, within 10 s) and has not exited. */
export const answers = async (server: RunningServer): Promise<boolean> => {
  try {
    const res = await fetch(`${server.url}/_health`, { signal: AbortSignal.timeout(10_000) });
    return res.status < 500 && !server.exited();
  } catch {
    return false;
  }
};

/** A PDF of exactly `bytes` bytes (a one-page document, padded after its end marker). */
const paddedPdf = (bytes: number): Buffer => {
  const head = Buffer.from(
    '%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n',
    'latin1',
  );
  return Buffer.concat([head, Buffer.alloc(bytes - head.length, 0x20)]);
};

export type UploadRun = { statuses: Record<string, number>; peakRss: number; startRss: number; survived: boolean };

export const uploadSoak = async (env: BenchEnv, key: string, uploadsDir: string): Promise<UploadRun> => {
  const before = new Set(fs.readdirSync(uploadsDir));
  const server = await startServer(env);
  try {
    const api = `${server.url}/api/v2`;
    const auth = { Authorization: `Bearer ${key}` };
    const jobs = (await (await fetch(`${api}/jobs?limit=100`, { headers: auth })).json()) as {
      data: { id: string; attributes: { closesOn?: string | null } }[];
    };
    const today = new Date().toISOString().slice(0, 10);
    const job = jobs.data.find((candidate) => !candidate.attributes.closesOn || candidate.attributes.closesOn >= today);
    if (!job) throw new Error('No open job to apply to in the demo content.');
    const cv = new Blob([paddedPdf(CV_BYTES)], { type: 'application/pdf' });
    const startRss = residentBytes(server.pid);
    const memory = sampleMemory(server.pid, 100);
    const statuses: Record<string, number> = {};
    say(`  ${UPLOAD_ROUNDS} rounds of ${UPLOAD_CONCURRENCY} concurrent job applications, each with a ${mib(CV_BYTES)} CV ...`);
    for (let round = 1; round <= UPLOAD_ROUNDS; round += 1) {
      await Promise.all(
        Array.from({ length: UPLOAD_CONCURRENCY }, async (_, n) => {
          const form = new FormData();
          form.set(
            'data',
            JSON.stringify({
              data: {
                type: 'job-application',
                attributes: { job: job.id, name: `Abuse Soak ${round}-${n}`, email: `soak-${round}-${n}@example.com`, consent: true },
              },
            }),
          );
          form.set('cv', cv, 'cv.pdf');
          const res = await fetch(`${api}/commands/job-application`, { method: 'POST', headers: auth, body: form }).catch(() => null);
          const status = res ? String(res.status) : 'error';
          await res?.arrayBuffer();
          statuses[status] = (statuses[status] ?? 0) + 1;
        }),
      );
    }
    memory.stop();
    return { statuses, peakRss: memory.peak(), startRss, survived: await answers(server) };
  } finally {
    await server.stop();
    // The CVs the accepted applications stored: this run's own files, removed.
    for (const file of fs.readdirSync(uploadsDir))
      if (!before.has(file) && file.startsWith('CV_')) fs.rmSync(path.join(uploadsDir, file), { force: true });
  }
};
