/** `npm run bench:cluster`: see bench/cluster.ts. */
export { main } from '../bench/cluster';
