/**
 * First-time transforms under load: how many new variants per second the server computes for many
 * clients at once, against sharp computing the same variants in-process with the same parallelism.
 *
 * Every request asks for a variant nobody asked for before (its own width, height and quality around a
 * target size, so each costs about the same), so each one decodes, resizes, encodes and stores. The
 * server runs at most `availableParallelism()` transforms at once (assets/transform.ts); the baseline
 * runs that many in-process workers over the same sequence of parameters, for the same time, with the
 * sharp settings the server has. Sequential timings (bench/assets.ts) add an idle machine's wake-up to
 * every request; this is the rate a busy server sustains.
 */
import { availableParallelism } from 'node:os';
import sharp from 'sharp';
import { measure, type Measurement, type MeasureOptions } from './measure';

export type TransformTarget = { width: number; height: number };

/** The n-th distinct set of parameters around `target`: 62,500 before any repeats. */
export const nthParameters = (target: TransformTarget, n: number) => ({
  w: target.width + (n % 50),
  h: target.height + (Math.floor(n / 50) % 50),
  q: 70 + (Math.floor(n / 2500) % 25),
});

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;

/** sharp in-process: `workers` loops over the parameter sequence, timed after a warm-up. */
const inProcess = async (sourceFile: string, target: TransformTarget, options: MeasureOptions, firstN: number): Promise<Measurement> => {
  let n = firstN;
  const latencies: number[] = [];
  let measuring = false;
  let stopAt = Date.now() + options.warmupSeconds * 1000;
  const worker = async () => {
    while (Date.now() < stopAt) {
      const { w, h, q } = nthParameters(target, (n += 1));
      const started = process.hrtime.bigint();
      await sharp(sourceFile, { autoOrient: true, limitInputPixels: 50_000_000 })
        .resize({ width: w, height: h, fit: 'inside', withoutEnlargement: true })
        .webp({ quality: q })
        .toBuffer();
      if (measuring && Date.now() < stopAt) latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  };
  const workers = availableParallelism();
  await Promise.all(Array.from({ length: workers }, worker));
  measuring = true;
  const started = Date.now();
  stopAt = started + options.seconds * 1000;
  await Promise.all(Array.from({ length: workers }, worker));
  latencies.sort((a, b) => a - b);
  return {
    label: `sharp in-process, ${workers} at once, same parameters`,
    requestsPerSecond: latencies.length / ((Date.now() - started) / 1000),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    non2xx: 0,
    failedStatuses: {},
    errors: 0,
    cpuMicrosPerRequest: null,
  };
};

/** Both sides for one image whose asset URL is `url` and whose bytes are at `sourceFile`. */
export const transformsUnderLoad = async (
  url: string,
  sourceFile: string,
  target: TransformTarget,
  options: MeasureOptions,
): Promise<{ ours: Measurement; baseline: Measurement }> => {
  const { origin, pathname } = new URL(url);
  let n = 0;
  const ours = await measure(
    {
      label: `GET …?w=${target.width}+&h=${target.height}+&q=70+&format=webp, ${options.connections} connections (each a new variant)`,
      url: `${origin}${pathname}`,
      path: () => {
        const { w, h, q } = nthParameters(target, (n += 1));
        return `${pathname}?w=${w}&h=${h}&q=${q}&format=webp`;
      },
    },
    options,
  );
  // The baseline continues the sequence: the same kind of work, none of it done before.
  const baseline = await inProcess(sourceFile, target, options, n);
  return { ours, baseline };
};
