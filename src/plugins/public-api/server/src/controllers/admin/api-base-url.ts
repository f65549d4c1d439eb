import type { Context } from 'koa';
import { API_BASE_PATH } from '../../config';

/** Absolute URL of /api/v2 as clients reach it: the configured public URL, else this request's origin. */
export const apiBaseUrl = (ctx: Context): string => {
  const configured = strapi.config.get('server.url') as string | undefined;
  const origin = configured && /^https?:\/\//.test(configured) ? configured.replace(/\/+$/, '') : ctx.origin;
  return `${origin}${API_BASE_PATH}`;
};
