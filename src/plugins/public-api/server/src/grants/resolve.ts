/**
 * Grants as people write them (a grants file, the admin form) -> grants as a key stores them.
 * Validates against the registry and the command list, and expands `*` to the fields that exist now.
 * Pure.
 */
import { z } from 'zod';
import { ORIGIN_RULE_MESSAGE, isValidOriginRule, normalizeOriginRule } from '../http/origins';
import type { Resource } from '../registry/types';
import { ACTIONS, type Action, type KeyGrants, type ResourceGrant } from './types';

const fieldList = z.union([z.literal('*'), z.array(z.string().min(1)).max(500)]);

export const resourceGrantInputSchema = z
  .object({
    actions: z.array(z.enum(ACTIONS)).max(ACTIONS.length),
    read: fieldList.default([]),
    write: fieldList.default([]),
  })
  .strict();

export const grantsInputSchema = z
  .object({
    resources: z.record(z.string(), resourceGrantInputSchema).default({}),
    commands: z.union([z.literal('*'), z.array(z.string().min(1)).max(100)]).default([]),
    origins: z.array(z.string()).max(100).default([]),
  })
  .strict();

export type GrantsInput = z.input<typeof grantsInputSchema>;

export type GrantIssue = { path: (string | number)[]; message: string };

export type ResolveResult = { ok: true; grants: KeyGrants } | { ok: false; issues: GrantIssue[] };

/** Actions a resource can ever support: singletons are read and updated, never created or deleted. */
export const supportedActions = (resource: Pick<Resource, 'mode'>): Action[] =>
  resource.mode === 'singleton' ? ['read', 'update'] : [...ACTIONS];

const unique = <T>(values: T[]): T[] => [...new Set(values)];

export const resolveGrants = (input: unknown, resources: readonly Resource[], commandNames: readonly string[]): ResolveResult => {
  const parsed = grantsInputSchema.safeParse(input);
  if (!parsed.success) {
    return {
      ok: false,
      issues: parsed.error.issues.map((issue) => ({ path: issue.path as (string | number)[], message: issue.message })),
    };
  }
  const issues: GrantIssue[] = [];
  const byId = new Map(resources.map((resource) => [resource.id, resource]));
  const grants: Record<string, ResourceGrant> = {};

  for (const [resourceId, grant] of Object.entries(parsed.data.resources)) {
    const resource = byId.get(resourceId);
    if (!resource) {
      issues.push({ path: ['resources', resourceId], message: `Unknown resource '${resourceId}'.` });
      continue;
    }
    const fieldNames = resource.fields.map((field) => field.key);
    const known = new Set(fieldNames);
    const expand = (list: '*' | string[], kind: 'read' | 'write'): string[] => {
      if (list === '*') return fieldNames;
      const unknown = unique(list.filter((name) => !known.has(name)));
      if (unknown.length) {
        issues.push({
          path: ['resources', resourceId, kind],
          message: `Unknown field${unknown.length > 1 ? 's' : ''} of ${resourceId}: ${unknown.map((n) => `'${n}'`).join(', ')}.`,
        });
      }
      return unique(list.filter((name) => known.has(name)));
    };
    const actions = unique(grant.actions);
    const unsupported = actions.filter((action) => !supportedActions(resource).includes(action));
    if (unsupported.length) {
      issues.push({
        path: ['resources', resourceId, 'actions'],
        message: `${resourceId} is a singleton: it supports read and update only, not ${unsupported.join(', ')}.`,
      });
    }
    grants[resourceId] = { actions, read: expand(grant.read, 'read'), write: expand(grant.write, 'write') };
  }

  const commands = parsed.data.commands === '*' ? [...commandNames] : unique(parsed.data.commands);
  const unknownCommands = commands.filter((name) => !commandNames.includes(name));
  if (unknownCommands.length) {
    issues.push({
      path: ['commands'],
      message: `Unknown command${unknownCommands.length > 1 ? 's' : ''}: ${unknownCommands.map((n) => `'${n}'`).join(', ')}.`,
    });
  }

  const origins: string[] = [];
  parsed.data.origins.forEach((origin, index) => {
    if (!isValidOriginRule(origin)) issues.push({ path: ['origins', index], message: `'${origin}': ${ORIGIN_RULE_MESSAGE}` });
    else origins.push(normalizeOriginRule(origin));
  });

  if (issues.length) return { ok: false, issues };
  return { ok: true, grants: { resources: grants, commands, origins: unique(origins) } };
};

/** Every resource that exists now, with every action it supports and every field: a snapshot. */
export const allGrants = (resources: readonly Resource[], commandNames: readonly string[]): KeyGrants => ({
  resources: Object.fromEntries(
    resources.map((resource) => {
      const fields = resource.fields.map((field) => field.key);
      return [resource.id, { actions: supportedActions(resource), read: fields, write: fields }];
    }),
  ),
  commands: [...commandNames],
  origins: [],
});

export const formatIssues = (issues: GrantIssue[]): string =>
  issues.map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message)).join('\n');
