/**
 * The application's domain rules, installed where every write passes: the document service.
 */
import type { Core } from '@strapi/strapi';
import { createDomainRulesMiddleware } from './middleware';

export const registerDomainRules = (strapi: Core.Strapi): void => {
  strapi.documents.use(createDomainRulesMiddleware(strapi));
};

export { DOMAIN_RULES, rulesFor } from './rules';
export type { DomainRule, RecordValues, RuleContext, RuleLookups } from './rules';
export { validationErrorOf, type Violation, type ValidationErrorDetail } from './violations';
