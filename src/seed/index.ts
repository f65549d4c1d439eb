/**
 * The deterministic demo seed and the benchmark volume.
 */
export { seedDemo, isUnchanged, type DemoSeedResult, type SeedLog } from './write/demo';
export { seedBulkEvents, BULK_BATCH_SIZE, type BulkSeedResult } from './write/bulk';
export { takeCensus, type CensusLine } from './write/census';
export { describeDemoSeed, describeBulkSeed } from './summary';
export { parseSeedArguments, SEED_USAGE, MAX_BULK_EVENTS, type SeedArguments } from './arguments';
export { buildDemoPlan } from './plan';
export { benchEvent, benchSlug } from './bench/events';
export { SEED_EPOCH } from './epoch';
export { contentFingerprint } from './write/fingerprint';
