/** `npm run bench:compression`: see bench/compression-levels.ts. */
export { main } from '../bench/compression-levels';
