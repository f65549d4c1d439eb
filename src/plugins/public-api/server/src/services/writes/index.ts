/**
 * Writes through Strapi's document service (contract section 7): create, update, remove and archive a
 * record of a resource, in one locale, as the key may.
 *
 * Every method here runs inside the transaction of the request (`database/connection.ts` `inTransaction`,
 * opened by the write wrapper). The document service wraps each of its calls in `strapi.db.transaction`,
 * which joins an open transaction instead of starting its own, so the draft, its publication, relation
 * rows, i18n's copies of shared fields, the read-back and the idempotency record commit together or not
 * at all: when anything fails after the first change, nothing of the write remains.
 *
 * Values reach Strapi only after `write/attributes.ts` has judged their shapes and `data.ts` has
 * resolved every reference; Strapi then applies the content type's validation and the domain rules
 * exactly as for the admin, inside component values too; its refusals carry where the request sent each
 * value (`withPointers`).
 */
import type { Core } from '@strapi/strapi';
import { recordNotFound } from '../../read/find-record';
import { createDocumentLock } from '../../database/document-lock';
import type { AttributePlan } from '../../write/attributes';
import { withPointers } from '../../write/violations';
import { getService } from '../../utils/get-service';
import { dataOf, unprocessable } from './data';
import { listChangesOnCreate } from './references';
import { applySlug } from './slugs';
import { localeParam, type WriteTarget } from './target';
import { assertNoPendingChanges, versionsOf } from './versions';

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const documents = (uid: string) =>
    strapi.documents(uid as Parameters<typeof strapi.documents>[0]) as unknown as {
      create: (params: Record<string, unknown>) => Promise<{ documentId: string }>;
      update: (params: Record<string, unknown>) => Promise<{ documentId: string } | null>;
      delete: (params: Record<string, unknown>) => Promise<unknown>;
      unpublish: (params: Record<string, unknown>) => Promise<unknown>;
    };

  const lockDocument = createDocumentLock(strapi);

  return {
    /**
     * Holds the record's rows against other writers until the write's transaction ends
     * (database/document-lock.ts): what the write checked before it writes (If-Match) stays true.
     */
    lock(uid: string, documentId: string): Promise<void> {
      return lockDocument(uid, documentId);
    },

    /** A new record, published. Returns its documentId. */
    async create(target: WriteTarget, plan: AttributePlan): Promise<string> {
      const problems = [...plan.problems, ...listChangesOnCreate(plan.fields)];
      if (problems.length) throw unprocessable(problems);
      const resource = target.projection.resource;
      const data = await dataOf(strapi, target, plan, null);
      await applySlug(target, data, null);
      // The website of the path, always: the scope is not a field, so no request can name another.
      if (resource.scopeAttribute && resource.website) data[resource.scopeAttribute] = resource.website.documentId;
      const created = await documents(resource.uid)
        .create({ data, status: 'published', ...localeParam(target) })
        .catch((error: unknown) => Promise.reject(withPointers(error, plan.fields)));
      return created.documentId;
    },

    /** Only the fields sent; the record stays published. Nothing sent, nothing written. */
    async update(target: WriteTarget, documentId: string, plan: AttributePlan): Promise<void> {
      if (plan.problems.length) throw unprocessable(plan.problems);
      if (plan.fields.length === 0) return;
      const resource = target.projection.resource;
      const targetField = resource.slugAttribute ? getService('slugs').sourceFieldOf(resource.uid, resource.slugAttribute) : undefined;
      const versions = await versionsOf(strapi, resource, documentId, target.locale, targetField ? [targetField] : []);
      if (!versions.published) throw recordNotFound();
      const data = await dataOf(strapi, target, plan, versions.published.id);
      await applySlug(target, data, { documentId, values: versions.draft ?? versions.published });
      // Only references were sent, each list as reads show it: nothing is written or published, not even a date.
      if (Object.keys(data).length === 0) return;
      assertNoPendingChanges(resource, versions);
      const updated = await documents(resource.uid)
        .update({ documentId, data, status: 'published', ...localeParam(target) })
        .catch((error: unknown) => Promise.reject(withPointers(error, plan.fields)));
      if (!updated) throw recordNotFound();
    },

    /** Removes the record in the write's locale (for resources that are not localized: the record). */
    async remove(target: WriteTarget, documentId: string): Promise<void> {
      await documents(target.projection.resource.uid).delete({ documentId, ...localeParam(target) });
    },

    /** Unpublishes the record: it keeps its draft for editors and disappears from reads. */
    async archive(target: WriteTarget, documentId: string): Promise<void> {
      await documents(target.projection.resource.uid).unpublish({ documentId, ...localeParam(target) });
    },
  };
};
