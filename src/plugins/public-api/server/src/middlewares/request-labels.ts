/**
 * What the api-v2 middleware tells the operations middleware about a request once it knows it: the API
 * key's id, for the request's log line and the `key` label of its metrics (middlewares/operations.ts).
 */
import type { Context } from 'koa';

const KEY_ID = Symbol('public-api.key-id');

type Labelled = { [KEY_ID]?: string };

export const labelRequestKey = (ctx: Context, keyId: string): void => {
  (ctx.state as Labelled)[KEY_ID] = keyId;
};

export const requestKeyOf = (ctx: Context): string | null => (ctx.state as Labelled)[KEY_ID] ?? null;
