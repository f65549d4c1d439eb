/** `npm run bench:webhooks`: see bench/webhooks.ts. */
export { main } from '../bench/webhooks';
