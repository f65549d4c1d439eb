import type { Context } from 'koa';
import { errors } from '@strapi/utils';
import { API_BASE_PATH } from '../../config';
import { requestLinks } from '../../http/base-url';
import { isApiError } from '../../http/errors';

/**
 * Absolute URL of /api/v2 as clients reach it: the configured public URL, else this request's host when
 * it is a well-formed host[:port] (the API's own rule for links, http/base-url.ts).
 */
export const apiBaseUrl = (ctx: Context): string => {
  try {
    return `${requestLinks(strapi.config.get('server.url'), ctx).origin}${API_BASE_PATH}`;
  } catch (error) {
    if (isApiError(error)) throw new errors.ValidationError(error.message);
    throw error;
  }
};
