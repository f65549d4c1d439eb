/** `npm run bench`: see bench/index.ts. */
export { main } from '../bench/index';
