/** `node scripts/run.js bench-sync`: see bench/sync.ts. */
export { main } from '../bench/sync';
