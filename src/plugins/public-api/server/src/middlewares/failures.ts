/**
 * How a failure anywhere under /api/v2 leaves: as one JSON:API error document; internals are logged,
 * never sent.
 */
import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { discardUnreadBody } from '../http/unread-body';
import { corsHeaders } from '../http/cors';
import { errorDocument, errorObject, isApiError } from '../http/errors';
import { normalizeRequestOrigin, originAllowed } from '../http/origins';
import { isWriteConflict, writeConflict } from '../http/write-conflict';
import { getService } from '../utils/get-service';
import { bodyTimeouts } from './request-of';
import { send, sendError } from './send';

/** Every failure as one JSON:API error document; internals logged, never sent. */
export const answerFailure = async (ctx: Context, strapi: Core.Strapi, caught: unknown) => {
  // A write the database rolled back for meeting another (a deadlock): nothing was kept, a retry succeeds.
  const error = isWriteConflict(caught) ? writeConflict() : caught;
  if (isApiError(error)) {
    // A browser may read a 401 or 429 only from an origin some key allows; it learns nothing else.
    const origin = normalizeRequestOrigin(ctx.get('Origin'));
    if ((error.status === 401 || error.status === 429) && origin && (await getService('keys').anyKeyAllowsOrigin(origin, originAllowed))) {
      ctx.set(corsHeaders(origin));
    }
    // A refusal is sent once the body nobody read has arrived, within an accepted body's limits; else
    // it closes the connection (http/body.ts).
    if (!(await discardUnreadBody(ctx.req, ctx.headers, bodyTimeouts(strapi)))) ctx.set('Connection', 'close');
    await sendError(ctx, error);
    return;
  }
  strapi.log.error(`[public-api] ${ctx.method} ${ctx.path} failed: ${(error as Error)?.stack ?? String(error)}`);
  await send(ctx, {
    kind: 'document',
    status: 500,
    document: errorDocument([errorObject(500, 'The server could not complete the request. It has been logged.')]),
  });
};
