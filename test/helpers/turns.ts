/**
 * The load gate's turns as an operator sees them: `public_api_request_turns` in the metrics
 * (docs/deployment.md). Tests of load shedding wait for a state of the gate with these, not for a time: on
 * a loaded machine a request may take longer than any pause to reach the gate. The application must be
 * booted with METRICS_TOKEN set to `token`.
 */
import type { TestApp } from './app';

export type Turns = { running: number; waiting: number };

/** The turns taken and the requests waiting now (none before the first keyed request registers the gauge). */
export const turnsOf = async (app: TestApp, token: string): Promise<Turns> => {
  const text = (await app.http().get('/metrics').set('Authorization', `Bearer ${token}`)).text;
  const value = (state: string) => Number(new RegExp(`^public_api_request_turns\\{state="${state}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  return { running: value('running'), waiting: value('waiting') };
};

/** Waits (up to 10 s) until the gate has `running` turns taken and `waiting` requests waiting. */
export const untilTurns = async (app: TestApp, token: string, running: number, waiting: number): Promise<void> => {
  let now = await turnsOf(app, token);
  for (let attempt = 0; attempt < 400 && (now.running !== running || now.waiting !== waiting); attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    now = await turnsOf(app, token);
  }
  expect(now).toEqual({ running, waiting });
};
