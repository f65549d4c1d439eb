/**
 * axe-core in the page under test: the accessibility engine is injected from node_modules and run on the
 * document; the test fails on critical and serious violations, listed so that a reader sees what to fix.
 */
import path from 'node:path';
import type { Page } from 'playwright-core';
import { APP_ROOT } from './app';

const AXE = path.join(APP_ROOT, 'node_modules', 'axe-core', 'axe.min.js');

export type AxeViolation = { id: string; impact: string; help: string; nodes: string[] };

/** The critical and serious violations on the page as it stands (every node, its CSS path). */
export const seriousViolations = async (page: Page): Promise<AxeViolation[]> => {
  // The page at rest: not the hover colour of whatever the last click left the pointer on.
  const viewport = page.viewportSize();
  if (viewport) await page.mouse.move(viewport.width - 2, viewport.height - 2);
  // Settled: a notification fading in is measured against a half-transparent background otherwise.
  // (Polled from here: the admin's Content-Security-Policy refuses waitForFunction's string predicates.)
  for (let wait = 0; wait < 30; wait += 1) {
    if (await page.evaluate('document.getAnimations().every((animation) => animation.playState !== "running")')) break;
    await page.waitForTimeout(100);
  }
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.addScriptTag({ path: AXE });
  return page.evaluate(`
    window.axe.run(document, { resultTypes: ['violations'] }).then((results) =>
      results.violations
        .filter((violation) => violation.impact === 'critical' || violation.impact === 'serious')
        .map((violation) => ({
          id: violation.id,
          impact: violation.impact,
          help: violation.help,
          nodes: violation.nodes.map(
            (node) => node.target.join(' ') + ' ' + node.html.slice(0, 120) + ' [' + (node.any[0]?.message ?? node.failureSummary ?? '') + ']',
          ),
        })),
    )
  `) as Promise<AxeViolation[]>;
};

/** "serious color-contrast (Elements must meet minimum color contrast ratio thresholds): td > span, ..." per violation. */
export const describeViolations = (violations: AxeViolation[]): string[] =>
  violations.map((violation) => `${violation.impact} ${violation.id} (${violation.help}): ${violation.nodes.slice(0, 6).join(', ')}`);

/** Fails with the readable list when the page has a critical or serious violation; `state` names the page in the message. */
export const expectAccessible = async (page: Page, state: string): Promise<void> => {
  const found = describeViolations(await seriousViolations(page));
  expect({ state, violations: found }).toEqual({ state, violations: [] });
};
