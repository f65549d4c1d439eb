/**
 * The seed's report, as lines of text. Pure.
 */
import type { WriteCounts } from './write/documents';
import type { CensusLine } from './write/census';
import type { BulkSeedResult } from './write/bulk';
import type { DemoSeedResult } from './write/demo';

const pad = (text: string, width: number) => text.padEnd(width);

export const describeDemoSeed = (result: DemoSeedResult, census: readonly CensusLine[]): string[] => {
  const writes = Object.entries(result.writes) as Array<[string, WriteCounts]>;
  const total = writes.reduce(
    (sum, [, counts]) => sum + counts.created + counts.localized + counts.published + counts.revised + counts.renamed,
    0,
  );
  const lines = [
    total === 0 && result.files.uploaded === 0
      ? `Demo content already complete: nothing written (${(result.durationMs / 1000).toFixed(1)} s).`
      : `Demo content written in ${(result.durationMs / 1000).toFixed(1)} s: ${result.files.uploaded} files uploaded, ${result.files.reused} reused.`,
  ];
  for (const [contentType, counts] of writes) {
    if (counts.created + counts.localized + counts.published + counts.revised + counts.renamed === 0) continue;
    lines.push(
      `  ${pad(contentType, 28)} created ${counts.created}, localizations ${counts.localized}, published ${counts.published}, draft edits ${counts.revised}, renamed ${counts.renamed}`,
    );
  }
  lines.push('In the database now:');
  for (const line of census) {
    lines.push(
      `  ${pad(line.contentType, 28)} ${pad(line.locale ?? '-', 3)} ${String(line.documents).padStart(6)} documents, ${String(line.published).padStart(6)} published`,
    );
  }
  return lines;
};

export const describeBulkSeed = (result: BulkSeedResult): string => {
  const seconds = result.durationMs / 1000;
  if (result.inserted === 0) return `Benchmark events: all ${result.requested} already present (${seconds.toFixed(1)} s).`;
  const rate = Math.round(result.inserted / Math.max(seconds, 0.001));
  return `Benchmark events: ${result.inserted} inserted, ${result.alreadyPresent} already present, in ${seconds.toFixed(1)} s (${rate} events/s).`;
};
