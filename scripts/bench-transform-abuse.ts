/** `npm run bench:transform-abuse`: see bench/transform-abuse.ts. */
export { main } from '../bench/transform-abuse';
