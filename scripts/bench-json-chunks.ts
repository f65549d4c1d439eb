/** `npm run bench:json-chunks`: see bench/json-chunks.ts. */
export { main } from '../bench/json-chunks';
