/** `npm run bench:abuse`: see bench/abuse.ts. */
export { main } from '../bench/abuse';
