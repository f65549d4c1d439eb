/**
 * A change of a stored to-many list, `{ "add": [...], "remove": [...] }`, once every reference is
 * resolved to a target document: what to link and what to unlink. Pure.
 *
 * JSON:API's relationship semantics (POST and DELETE on a to-many relationship): adding a member that is
 * already linked changes nothing, removing one that is not linked changes nothing, so a change can be
 * retried. The stored list is never read whole: `linked` says, of the documents the change names, which
 * are linked now, and the result is `(stored ∪ add) \ remove`, the stored order kept and the added
 * documents appended in the order sent.
 *
 * A document named twice in `add` or twice in `remove`, or in both, is refused (422): what the client
 * meant is unclear, as with a plain list that names a record twice.
 */
export type NamedTarget = { documentId: string; pointer: string };

export type ListChangeProblem = { pointer: string; reason: 'target_repeated' | 'target_added_and_removed'; detail: string };

export type ListChange = {
  /** Documents to link, at the end of the list, in this order: those of `add` not linked yet. */
  connect: string[];
  /** Documents to unlink: those of `remove` linked now. */
  disconnect: string[];
  problems: ListChangeProblem[];
};

export const planListChange = (
  linked: ReadonlySet<string>,
  add: readonly NamedTarget[],
  remove: readonly NamedTarget[],
  targetName: string,
): ListChange => {
  const problems: ListChangeProblem[] = [];
  const once = (targets: readonly NamedTarget[]): NamedTarget[] => {
    const seen = new Set<string>();
    return targets.filter((target) => {
      if (!seen.has(target.documentId)) {
        seen.add(target.documentId);
        return true;
      }
      problems.push({ pointer: target.pointer, reason: 'target_repeated', detail: `This ${targetName} record is already named above.` });
      return false;
    });
  };
  const adds = once(add);
  const removes = once(remove);
  const added = new Set(adds.map((target) => target.documentId));
  for (const target of removes) {
    if (added.has(target.documentId)) {
      problems.push({
        pointer: target.pointer,
        reason: 'target_added_and_removed',
        detail: `This ${targetName} record is also in \`add\`: a change either links a record or unlinks it.`,
      });
    }
  }
  return {
    connect: adds.filter((target) => !linked.has(target.documentId)).map((target) => target.documentId),
    disconnect: removes
      .filter((target) => linked.has(target.documentId) && !added.has(target.documentId))
      .map((target) => target.documentId),
    problems,
  };
};
