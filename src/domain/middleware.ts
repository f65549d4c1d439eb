/**
 * The document service middleware that enforces the domain rules on every write, whoever makes it:
 * the Strapi admin, the Public Data API, scripts. Strapi glue around the pure rules.
 */
import type { Core, Modules } from '@strapi/strapi';
import { documentWriteOf } from './document-write';
import { effectiveValues, evaluateRules, fieldsRead, rulesAtStake } from './evaluate';
import { createRuleLookups } from './lookups';
import { DOMAIN_RULES, rulesFor, type DomainRule, type RecordValues } from './rules';
import { loadStoredValues } from './stored-values';
import { validationErrorOf } from './violations';

export const createDomainRulesMiddleware = (
  strapi: Core.Strapi,
  rules: readonly DomainRule[] = DOMAIN_RULES,
): Modules.Documents.Middleware.Middleware => {
  const lookups = createRuleLookups(strapi);

  return async (context, next) => {
    const governing = rulesFor(context.uid, rules);
    if (governing.length === 0) return next();
    const write = documentWriteOf(context.action, context.params);
    if (!write) return next();

    const atStake = rulesAtStake(governing, write.kind, write.data);
    if (atStake.length === 0) return next();

    const fields = fieldsRead(atStake);
    const stored: RecordValues =
      write.kind === 'create' ? {} : await loadStoredValues(strapi, context.contentType, write.documentId, write.locale, fields);
    const violations = await evaluateRules(atStake, effectiveValues(stored, write.data, fields), {
      contentType: context.uid,
      // A clone becomes a new document: its source's values count as another document's.
      documentId: write.kind === 'update' ? write.documentId : null,
      changed: new Set(Object.keys(write.data)),
      lookups,
    });
    if (violations.length > 0) throw validationErrorOf(violations);
    return next();
  };
};
