/** `node scripts/run.js bench-reference-lists`: see bench/reference-lists.ts. */
export { main } from '../bench/reference-lists';
