/**
 * Records send outcomes together: outcomes that arrive while a batch is being written wait for the next
 * one, and each batch runs inside `batch` (on SQLite: one transaction, the one connection taken once
 * instead of once per outcome). A batch holds at most `maxPerBatch` outcomes (a transaction of bounded
 * length); a failing outcome is reported to `onError` and does not stop the others. Each caller's promise
 * resolves once its batch has ended (committed, or failed and reported).
 */
export const MAX_SETTLES_PER_BATCH = 64;

type Waiting = { work: () => Promise<void>; done: () => void };

export const createSettleBatcher = (
  batch: (work: () => Promise<void>) => Promise<void>,
  onError: (error: Error) => void,
  maxPerBatch = MAX_SETTLES_PER_BATCH,
) => {
  const queue: Waiting[] = [];
  let writing = false;

  const flush = async (): Promise<void> => {
    writing = true;
    while (queue.length > 0) {
      const taken = queue.splice(0, maxPerBatch);
      try {
        await batch(async () => {
          for (const { work } of taken) {
            try {
              await work();
            } catch (error) {
              onError(error as Error);
            }
          }
        });
      } catch (error) {
        onError(error as Error);
      }
      for (const { done } of taken) done();
    }
    writing = false;
  };

  return (work: () => Promise<void>): Promise<void> =>
    new Promise<void>((resolve) => {
      queue.push({ work, done: resolve });
      if (!writing) void flush();
    });
};
