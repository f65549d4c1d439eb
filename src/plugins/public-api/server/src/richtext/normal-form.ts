/**
 * Runs of text -> Strapi's inline children in the normal form the Strapi editor (Slate) keeps: text nodes
 * hold no `false` flags; empty text nodes only as the only child of an empty block and before, between
 * and after links; neighbours with the same marks joined; adjacent runs with one link one link node. Pure.
 */
import type { BlocksInline, BlocksText } from './blocks';
import type { LinkAttrs } from './doc';
import { FORMATS, type FormatFlag } from './vocabulary';

/** A run of text with its marks: the unit both sides are built from. */
export type Run = { text: string; flags: ReadonlySet<FormatFlag>; link: LinkAttrs | null };

export const emptyText = (): BlocksText => ({ type: 'text', text: '' });

const sameFlags = (a: ReadonlySet<FormatFlag>, b: ReadonlySet<FormatFlag>) => a.size === b.size && [...a].every((flag) => b.has(flag));

const sameLink = (a: LinkAttrs | null, b: LinkAttrs | null) =>
  a === b || (a !== null && b !== null && a.href === b.href && a.rel === b.rel && a.target === b.target);

const textOf = (run: Pick<Run, 'text' | 'flags'>): BlocksText => {
  const text: BlocksText = { type: 'text', text: run.text };
  for (const [, flag] of FORMATS) if (run.flags.has(flag)) text[flag] = true;
  return text;
};

/** Non-empty runs -> text nodes, neighbours with the same marks joined; one empty text when there is none. */
export const joinTexts = (runs: readonly Pick<Run, 'text' | 'flags'>[]): BlocksText[] => {
  const joined: Pick<Run, 'text' | 'flags'>[] = [];
  for (const run of runs) {
    const previous = joined.at(-1);
    if (previous && sameFlags(previous.flags, run.flags)) joined[joined.length - 1] = { ...previous, text: previous.text + run.text };
    else joined.push(run);
  }
  return joined.length ? joined.map(textOf) : [emptyText()];
};

/**
 * Runs -> Strapi inline children in Slate's normal form: consecutive runs with one link become one link
 * node, and every link has a text node before and after it (empty where nothing else is).
 */
export const inlineFromRuns = (runs: readonly Run[]): BlocksInline[] => {
  const groups: { link: LinkAttrs | null; runs: Run[] }[] = [];
  for (const run of runs) {
    const group = groups.at(-1);
    if (group && sameLink(group.link, run.link)) group.runs.push(run);
    else groups.push({ link: run.link, runs: [run] });
  }
  const children: BlocksInline[] = [];
  for (const { link, runs: grouped } of groups) {
    if (!link) {
      children.push(...joinTexts(grouped));
      continue;
    }
    if (children.at(-1)?.type !== 'text') children.push(emptyText());
    children.push({
      type: 'link',
      url: link.href,
      children: joinTexts(grouped),
      ...(link.rel !== undefined ? { rel: link.rel } : {}),
      ...(link.target !== undefined ? { target: link.target } : {}),
    });
  }
  if (children.at(-1)?.type !== 'text') children.push(emptyText());
  return children;
};
