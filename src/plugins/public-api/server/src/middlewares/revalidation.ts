/**
 * The edge's side of the revalidation memo (services/revalidation.ts): which requests it answers, and
 * the 304 it writes. Reads of collections, records and singletons carrying If-None-Match, except a later
 * page (`cursor`): the answer's tag is the one a full read would compute, the headers those of its 304.
 */
import type { Context } from 'koa';
import type { ApiKey } from '../keys/types';
import type { RouteName } from '../routes/content-api';
import { chooseCoding } from '../http/accept-encoding';
import { codedTag, noneMatch } from '../http/entity-tags';
import type { RevalidationMemo } from '../http/respond';
import type { ReadState } from '../services/revalidation';
import { getService } from '../utils/get-service';

const MEMOIZED_ROUTES: ReadonlySet<RouteName> = new Set<RouteName>(['native-collection', 'native-record', 'cms-collection', 'cms-record']);

/** The 304 the memo answers: the headers the 200 would have had, with the tag of the chosen coding. */
export type MemoAnswer = { headers: Record<string, string>; vary: string[] };

export type Revalidation = { id: string; state: ReadState; answer: MemoAnswer | null };

const answerOf = (memo: RevalidationMemo, acceptEncoding: string | undefined): MemoAnswer => {
  const coding = memo.compressible ? chooseCoding(acceptEncoding) : null;
  return { headers: { ...memo.headers, ETag: codedTag(memo.tag, coding) }, vary: memo.vary };
};

/** The memo's view of a read that revalidates, with its 304 when the memo can answer; null for any other request. */
export const revalidationOf = async (
  ctx: Context,
  route: RouteName,
  key: ApiKey,
  read: { origin: string; pathAndQuery: string; query: URLSearchParams },
): Promise<Revalidation | null> => {
  const ifNoneMatch = ctx.get('If-None-Match');
  if (!ifNoneMatch || (ctx.method !== 'GET' && ctx.method !== 'HEAD') || !MEMOIZED_ROUTES.has(route) || read.query.has('cursor')) {
    return null;
  }
  const memo = getService('revalidation');
  const id = memo.readId(key, read.origin, read.pathAndQuery, ctx.get('Accept'));
  const state = await memo.state(key, route.startsWith('cms-'));
  const remembered = await memo.answer(id, state, (tag) => noneMatch(ifNoneMatch, tag));
  return { id, state, answer: remembered ? answerOf(remembered, ctx.get('Accept-Encoding') || undefined) : null };
};

/** Writes the memo's 304: no body, the headers the 200 would have had. */
export const sendMemoAnswer = (ctx: Context, answer: MemoAnswer): void => {
  ctx.status = 304;
  ctx.set(answer.headers);
  for (const field of answer.vary) ctx.vary(field);
  ctx.body = null;
};
