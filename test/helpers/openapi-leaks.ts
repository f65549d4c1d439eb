/**
 * The leak check of key-scoped OpenAPI documents: which names of resources, websites, fields and
 * commands a document holds although the key's grants do not reach them.
 *
 * Some words are in every document whatever it grants (`title` is an error member, `sort` a system
 * value, `images` a field type, `location` a header): a name that is one of those counts only where it
 * would name something, as an attribute of a record or a write body.
 */
import { z } from 'zod';
import type { CommandDefinition } from '../../src/plugins/public-api/server/src/commands';
import { project } from '../../src/plugins/public-api/server/src/grants/projection';
import { targetResolver } from '../../src/plugins/public-api/server/src/grants/targets';
import type { KeyGrants } from '../../src/plugins/public-api/server/src/grants/types';
import { buildOpenApiDocument } from '../../src/plugins/public-api/server/src/openapi/document';
import type { Resource } from '../../src/plugins/public-api/server/src/registry/types';

type Document = { components: { schemas?: Record<string, { properties?: Record<string, unknown> }> } };

/** The document of made-up resources without fields, with every action and a command: the words any document may hold. */
export const structuralText = (() => {
  let text: string | null = null;
  return (): string => {
    if (text !== null) return text;
    const base = {
      sourceType: 'native',
      kind: 'collectionType',
      localized: true,
      draftAndPublish: true,
      identifiers: ['slug', 'id'],
      slugAttribute: 'slug',
      sortAttribute: 'sort',
      fields: [],
    };
    const made = [
      { ...base, id: 'native:zzz', slug: 'zzz', name: 'Zzz', uid: 'api::zzz.zzz', mode: 'collection', deleteMode: 'remove' },
      { ...base, id: 'native:yyy', slug: 'yyy', name: 'Yyy', uid: 'api::yyy.yyy', mode: 'collection', deleteMode: 'archive' },
      {
        ...base,
        id: 'cms:qqq/xxx',
        sourceType: 'cms',
        website: { id: 9, documentId: 'q', slug: 'qqq', name: 'Qqq' },
        slug: 'xxx',
        name: 'Xxx',
        uid: 'api::xxx.xxx',
        mode: 'singleton',
        deleteMode: 'remove',
      },
    ] as unknown as Resource[];
    const grants: KeyGrants = {
      resources: Object.fromEntries(
        made.map((resource) => [
          resource.id,
          { actions: resource.mode === 'singleton' ? ['read', 'update'] : ['read', 'create', 'update', 'delete'], read: [], write: [] },
        ]),
      ),
      commands: ['ccc'],
      origins: [],
    };
    text = JSON.stringify(
      buildOpenApiDocument({
        baseUrl: 'https://x.test/api/v2',
        grants,
        resources: made,
        locales: ['de', 'en'],
        commands: [{ name: 'ccc', description: 'Run ccc', input: () => z.object({}) } as unknown as CommandDefinition],
      }),
    ).toLowerCase();
    return text;
  };
})();

/** Every name the registry and the command list hold. */
export const namesOf = (resources: readonly Resource[], commands: readonly string[]): Set<string> => {
  const names = new Set<string>(commands);
  for (const resource of resources) {
    names.add(resource.slug);
    names.add(resource.name);
    if (resource.website) names.add(resource.website.slug);
    for (const field of resource.fields) names.add(field.key);
  }
  return names;
};

/** The names a key's grants reach: its resources, their websites, the fields in its projections, their targets, its commands. */
export const reachableNames = (grants: KeyGrants, resources: readonly Resource[]): Set<string> => {
  const names = new Set<string>(grants.commands);
  const resolve = targetResolver(resources);
  for (const resource of resources) {
    const grant = grants.resources[resource.id];
    if (!grant || grant.actions.length === 0) continue;
    names.add(resource.slug);
    names.add(resource.name);
    if (resource.website) names.add(resource.website.slug);
    const projection = project(grants, resource, resolve);
    for (const field of [...projection.readable, ...projection.writable]) names.add(field.key);
    for (const target of projection.targets.values()) names.add(target.slug);
    for (const field of projection.fields) for (const option of field.options ?? []) names.add(option.value);
    // Components of readable component fields: their uids (a dynamic zone item's `type`), labels and fields.
    for (const component of projection.components.values()) {
      names.add(component.resource.uid);
      names.add(component.resource.name);
      for (const field of component.readable) names.add(field.key);
      for (const target of component.targets.values()) names.add(target.slug);
      for (const field of component.fields) for (const option of field.options ?? []) names.add(option.value);
    }
  }
  return names;
};

/** Names the document holds although the grants do not reach them (empty when nothing leaks). */
export const leakedNames = (input: {
  document: Document;
  grants: KeyGrants;
  resources: readonly Resource[];
  commands: readonly string[];
}): string[] => {
  const text = JSON.stringify(input.document).toLowerCase();
  const reachable = reachableNames(input.grants, input.resources);
  const reachableText = [...reachable].map((name) => name.toLowerCase());
  const structural = structuralText();
  const inText = [...namesOf(input.resources, input.commands)]
    .filter((name) => !reachable.has(name))
    .map((name) => name.toLowerCase())
    .filter((name) => !structural.includes(name) && !reachableText.some((granted) => granted.includes(name)))
    .filter((name) => text.includes(name));
  const asAttributes = Object.entries(input.document.components.schemas ?? {})
    .filter(([name]) => name.endsWith('Attributes'))
    .flatMap(([, schema]) => Object.keys(schema.properties ?? {}))
    .filter((key) => !reachable.has(key));
  return [...new Set([...inText, ...asAttributes])];
};
