/**
 * A transform process (assets/transform-pool.ts forks it): computes one transform at a time, as the pool
 * asks over IPC, and answers the encoded bytes or the error's message. It is killed when a transform
 * passes its time limit: an encoder (AVIF above all) cannot be interrupted inside a process, and a
 * killed process uses no more CPU.
 *
 * libvips' threads per transform come from PUBLIC_API_TRANSFORM_THREADS (the pool sets it so that the
 * pool's transforms together use about the machine's cores); its operation cache is off, since one
 * process sees many images once each.
 */
import sharp from 'sharp';
import { transformPipeline } from './transform-pipeline';
import type { WorkerAnswer, WorkerJob } from './transform-pool';

const threads = Number(process.env.PUBLIC_API_TRANSFORM_THREADS);
sharp.concurrency(Number.isInteger(threads) && threads > 0 ? threads : 1);
sharp.cache(false);

const reply = (answer: WorkerAnswer) => process.send?.(answer);

process.on('message', (job: WorkerJob) => {
  transformPipeline(job.path, job.transform)
    .toBuffer()
    .then(
      (buffer) => reply({ id: job.id, buffer }),
      (error: unknown) => reply({ id: job.id, error: (error as Error)?.message ?? String(error) }),
    );
});
// The pool's process is gone (or closed the channel): nothing will ask again.
process.on('disconnect', () => process.exit(0));
