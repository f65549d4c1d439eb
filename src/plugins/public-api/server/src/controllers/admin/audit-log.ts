/**
 * /public-api/audit-log?subjectType=key|website&subjectId=&before=&limit=: entries newest first,
 * keyset-paged (services/audit-log.ts).
 */
import type { Context } from 'koa';
import { z } from 'zod';
import { AUDIT_SUBJECT_TYPES, type ListAuditLog } from '../../../../shared/contracts/audit';
import { AUDIT_PAGE_MAX } from '../../services/audit-log';
import { getService } from '../../utils/get-service';
import { parseBody } from './input';

const id = (what: string) =>
  z.coerce
    .number({ error: `${what} is a positive whole number.` })
    .int(`${what} is a positive whole number.`)
    .positive(`${what} is a positive whole number.`);

const auditQuery = z
  .object({
    subjectType: z.enum(AUDIT_SUBJECT_TYPES, { error: `subjectType is one of ${AUDIT_SUBJECT_TYPES.join(', ')}.` }).optional(),
    subjectId: id('subjectId').optional(),
    before: id('before').optional(),
    limit: id('limit').max(AUDIT_PAGE_MAX, `limit is at most ${AUDIT_PAGE_MAX}.`).optional(),
  })
  .strict();

export default () => ({
  async list(ctx: Context) {
    const query = parseBody(auditQuery, ctx.query);
    const { entries, next } = await getService('audit-log').list(query);
    ctx.body = { data: entries, meta: { next } } satisfies ListAuditLog.Response;
  },
});
