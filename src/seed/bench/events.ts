/**
 * Benchmark events: the n-th one is a pure function of n, so any subset can be (re)generated
 * without the others and two databases get identical rows.
 */
import { paragraph, type Blocks } from '../content/blocks';
import { SEED_EPOCH } from '../epoch';
import { CATEGORIES, eventTitle, type Category } from '../plan/event-titles';
import { sortValueAt } from '../plan/sort';
import { createRandom, seedOf } from '../random';
import { deterministicDocumentId } from './document-id';

export const BENCH_SLUG_PREFIX = 'bench-';

export const benchSlug = (n: number): string => `${BENCH_SLUG_PREFIX}${String(n).padStart(6, '0')}`;

export type BenchEvent = {
  documentId: string;
  title: string;
  slug: string;
  sort: number | null;
  summary: string;
  startsAt: Date;
  endsAt: Date | null;
  category: Category;
  tags: string[];
  price: number;
  soldOut: boolean;
  capacity: number;
  body: Blocks;
  /** Picks the venue among the available ones: `venueSeed % venues.length`. */
  venueSeed: number;
};

const HOUR = 60 * 60 * 1000;
const TAGS = ['benchmark', 'family-friendly', 'outdoor', 'late-night', 'free', 'accessible', 'english', 'premiere'];

/** Sort values of benchmark events come after the demo's (which stay below 10 000). */
const BENCH_SORT_OFFSET = 100_000;

export const benchEvent = (n: number): BenchEvent => {
  const random = createRandom(seedOf(`bench-event-${n}`));
  const category = random.pick(CATEGORIES);
  const title = eventTitle(category, random).en;
  const startsAt = new Date(SEED_EPOCH + random.int(-365, 730) * 24 * HOUR + random.int(9, 21) * HOUR);
  const sort = sortValueAt(n - 1);
  return {
    documentId: deterministicDocumentId(seedOf(`bench-document-${n}`)),
    title,
    slug: benchSlug(n),
    sort: sort === null ? null : BENCH_SORT_OFFSET + sort,
    summary: `${title}: benchmark event no. ${n}.`,
    startsAt,
    endsAt: random.chance(0.1) ? null : new Date(startsAt.getTime() + random.int(1, 4) * HOUR),
    category,
    tags: random.sample(TAGS, random.int(0, 3)),
    price: random.chance(0.15) ? 0 : random.int(10, 160) / 2,
    soldOut: random.chance(0.05),
    capacity: random.int(20, 1500),
    body: [paragraph(`${title}. One of the generated events used to measure the API at volume.`)],
    venueSeed: random.int(0, 2 ** 30),
  };
};
