/** `npm run bench:assets`: see bench/assets.ts. */
export { main } from '../bench/assets';
