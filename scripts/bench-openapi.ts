/** `npm run bench:openapi`: see bench/openapi.ts. */
export { main } from '../bench/openapi';
